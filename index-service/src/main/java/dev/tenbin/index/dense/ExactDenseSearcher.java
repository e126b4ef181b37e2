package dev.tenbin.index.dense;

/**
 * The former name of {@link DenseSearcher}, kept so that existing callers compile; it adds nothing.
 *
 * @deprecated use {@link DenseSearcher}
 */
@Deprecated
public final class ExactDenseSearcher extends DenseSearcher {
  public ExactDenseSearcher(float[] vectors, int dimension, int[] idOrder) {
    super(vectors, dimension, idOrder);
  }
}
