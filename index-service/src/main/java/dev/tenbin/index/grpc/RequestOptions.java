package dev.tenbin.index.grpc;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.SparseOptions;

/**
 * The enums and ranges of search and rescore requests, checked once: a required choice left
 * UNSPECIFIED, or a value this service does not know (a newer client's), is INVALID_ARGUMENT naming
 * the field, never a silent default.
 */
final class RequestOptions {
  /** Largest {@code dense.rescore_depth}. */
  static final int MAX_RESCORE_DEPTH = 100_000;

  private RequestOptions() {}

  /** The request's family; required. */
  static Family family(Family family, int number) {
    return switch (family) {
      case FAMILY_BM25, FAMILY_DENSE, FAMILY_SPARSE, FAMILY_MULTIVECTOR -> family;
      case FAMILY_UNSPECIFIED ->
          throw new InvalidInputException(
              "family", "family is required: FAMILY_BM25, FAMILY_DENSE, FAMILY_SPARSE or FAMILY_MULTIVECTOR");
      case UNRECOGNIZED -> throw new InvalidInputException("family", "unknown family " + number);
    };
  }

  /** Cosine unless dot is asked for. */
  static VectorSimilarity similarity(DenseOptions options) {
    return switch (options.getSimilarity()) {
      case SIMILARITY_UNSPECIFIED, SIMILARITY_COSINE -> VectorSimilarity.COSINE;
      case SIMILARITY_DOT -> VectorSimilarity.DOT;
      case UNRECOGNIZED ->
          throw new InvalidInputException("dense.similarity", "unknown similarity " + options.getSimilarityValue());
    };
  }

  /** The float scan unless a quantization is asked for. */
  static Quantization quantization(DenseOptions options) {
    return switch (options.getQuantization()) {
      case QUANTIZATION_UNSPECIFIED, QUANTIZATION_NONE -> Quantization.NONE;
      case QUANTIZATION_INT8 -> Quantization.INT8;
      case QUANTIZATION_BINARY -> Quantization.BINARY;
      case UNRECOGNIZED ->
          throw new InvalidInputException("dense.quantization", "unknown quantization " + options.getQuantizationValue());
    };
  }

  /** A dense search's variant. */
  static DenseSearchOptions dense(DenseOptions options) {
    if (options.getRescoreDepth() < 0 || options.getRescoreDepth() > MAX_RESCORE_DEPTH) {
      throw new InvalidInputException(
          "dense.rescore_depth",
          "rescore_depth must be within 0.." + MAX_RESCORE_DEPTH + " (0 = default), got " + options.getRescoreDepth());
    }
    return new DenseSearchOptions(
        similarity(options),
        options.getTruncateDimensions(),
        quantization(options),
        options.getRescore(),
        options.getRescoreDepth(),
        options.getApproximate());
  }

  /** Checks sparse pruning limits (0 = none). */
  static SparseOptions sparse(SparseOptions options) {
    if (options.getMaxQueryDims() < 0) {
      throw new InvalidInputException("sparse.max_query_dims", "max_query_dims must not be negative");
    }
    if (options.getMaxDocumentDims() < 0) {
      throw new InvalidInputException("sparse.max_document_dims", "max_document_dims must not be negative");
    }
    return options;
  }
}
