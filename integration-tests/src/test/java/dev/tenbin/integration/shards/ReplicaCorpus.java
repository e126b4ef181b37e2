package dev.tenbin.integration.shards;

import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The generated documents and queries of the replica tests: few words and coarse 16-dimensional
 * vectors, so many documents tie on score and the tie order is exercised in both families.
 */
final class ReplicaCorpus {
  static final int DIMENSION = 16;

  static final DenseOptions COSINE =
      DenseOptions.newBuilder().setSimilarity(Similarity.SIMILARITY_COSINE).build();

  private static final String[] WORDS = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega"
  };

  private ReplicaCorpus() {}

  private static String words(SplittableRandom random, int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.toString();
  }

  /** {@code count} documents {@code doc-0...}, each with a title, a text and a coarse vector. */
  static List<Document> documents(int count) {
    SplittableRandom random = new SplittableRandom(7);
    List<Document> documents = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < DIMENSION; i++) {
        vector.addValues((float) random.nextInt(-3, 4));
      }
      documents.add(
          Document.newBuilder()
              .setId("doc-" + d)
              .setTitle(words(random, 2))
              .setText(words(random, 1 + random.nextInt(12)))
              .setDense(vector)
              .build());
    }
    return documents;
  }

  /**
   * {@code documents} in order, running {@code action} just before the document numbered {@code at}
   * (1-based) is handed out: a fault or a call in the middle of an ingest.
   */
  static java.util.Iterator<Document> runningAt(List<Document> documents, int at, Runnable action) {
    java.util.Iterator<Document> all = documents.iterator();
    return new java.util.Iterator<>() {
      private int handed;

      @Override
      public boolean hasNext() {
        return all.hasNext();
      }

      @Override
      public Document next() {
        if (++handed == at) {
          action.run();
        }
        return all.next();
      }
    };
  }

  /** 30 queries of three words. */
  static List<Query> textQueries() {
    SplittableRandom random = new SplittableRandom(13);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 30; q++) {
      queries.add(Query.newBuilder().setId("q" + q).setText(words(random, 3)).build());
    }
    return queries;
  }

  /** 20 Gaussian query vectors. */
  static List<Query> denseQueries() {
    SplittableRandom random = new SplittableRandom(17);
    List<Query> queries = new ArrayList<>();
    for (int q = 0; q < 20; q++) {
      DenseVector.Builder vector = DenseVector.newBuilder();
      for (int i = 0; i < DIMENSION; i++) {
        vector.addValues((float) random.nextGaussian());
      }
      queries.add(Query.newBuilder().setId("q" + q).setDense(vector).build());
    }
    return queries;
  }
}
