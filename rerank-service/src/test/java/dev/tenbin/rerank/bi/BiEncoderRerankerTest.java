package dev.tenbin.rerank.bi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.client.encoder.EncoderClient;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dense bi-encoder reranker scores each candidate by the dot product of its cached vector with
 * the query's, and asks the encoding for each distinct (model, text) once.
 */
class BiEncoderRerankerTest {
  /** Never called: dense vectors come from {@link #encoding}. */
  private final ManagedChannel unused = InProcessChannelBuilder.forName("unused").build();

  /** Every call to the encoding: model, role, texts. */
  private final List<String> calls = new ArrayList<>();

  /** A deterministic vector of a text: its length, its first character, and the model's mark. */
  private final DenseEncoding encoding =
      (model, texts, query) -> {
        calls.add(model + (query ? " query " : " documents ") + texts);
        List<float[]> vectors = new ArrayList<>();
        for (String text : texts) {
          vectors.add(vector(model, text, query));
        }
        return vectors;
      };

  private static float[] vector(String model, String text, boolean query) {
    return new float[] {
      text.length(), text.charAt(0), model.equals("a") ? 1f : -1f, query ? 0.5f : 0.25f
    };
  }

  private static float dot(float[] a, float[] b) {
    float dot = 0;
    for (int j = 0; j < a.length; j++) {
      dot += a[j] * b[j];
    }
    return dot;
  }

  @AfterEach
  void close() {
    unused.shutdownNow();
  }

  @Test
  void scoresAreDotProductsAndEachDistinctTextOfAModelIsEncodedOnce() {
    BiEncoderReranker reranker = new BiEncoderReranker(EncoderClient.of(unused), encoding);
    // Texts are built at run time, as a request's are parsed: equal texts, distinct strings.
    String first = new StringBuilder("alpha beta").toString();
    List<String> candidates =
        List.of(first, "gamma", new StringBuilder("alpha").append(" beta").toString(), "delta");

    float[] scores = reranker.score("dense:a", "q text", candidates);

    float[] query = vector("a", "q text", true);
    for (int i = 0; i < candidates.size(); i++) {
      assertThat(scores[i])
          .as("candidate %d", i)
          .isEqualTo(dot(query, vector("a", candidates.get(i), false)));
    }
    assertThat(calls).containsExactly("a query [q text]", "a documents [alpha beta, gamma, delta]");

    // A later set: only its new text is encoded, cached ones are read back, scores unchanged.
    calls.clear();
    float[] again = reranker.score("dense:a", "q text", List.of("delta", "epsilon", first));
    assertThat(calls).containsExactly("a query [q text]", "a documents [epsilon]");
    assertThat(again[0]).isEqualTo(scores[3]);
    assertThat(again[2]).isEqualTo(scores[0]);
    assertThat(again[1]).isEqualTo(dot(query, vector("a", "epsilon", false)));

    // Another model's vectors are its own: the same texts are encoded again for it.
    calls.clear();
    float[] other = reranker.score("dense:b", "q text", List.of("gamma"));
    assertThat(calls).containsExactly("b query [q text]", "b documents [gamma]");
    assertThat(other[0]).isEqualTo(dot(vector("b", "q text", true), vector("b", "gamma", false)));
  }
}
