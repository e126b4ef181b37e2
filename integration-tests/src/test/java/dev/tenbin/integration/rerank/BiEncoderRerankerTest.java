package dev.tenbin.integration.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retrieval models as rerankers, scoring through a real (in-process) encoder service. */
class BiEncoderRerankerTest {
  @TempDir Path tmp;

  @Test
  void denseSparseAndMaxSimRerankersScoreCandidatesLikeTheirRetrievalModels() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    String name = "encoder-" + UUID.randomUUID();
    try (var encoder =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("cache")),
            new SimpleMeterRegistry())) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      try (RerankCore core =
          dev.tenbin.rerank.server.RerankServer.core(
              models, tmp.resolve("cache"), () -> EncoderClient.of(channel), 100, 1024)) {
        List<RerankCore.Candidate> candidates =
            List.of(
                new RerankCore.Candidate("a", "apple banana"),
                new RerankCore.Candidate("b", "cherry date"),
                new RerankCore.Candidate("c", "apple"));
        for (String model :
            List.of("dense:tiny-dense", "sparse:tiny-splade", "multivector:tiny-colbert")) {
          var reranked =
              core.rerank(model, "apple", candidates, ScorePrecision.FP32, 0, Cancellation.NEVER);
          assertThat(reranked.documents()).as(model).hasSize(3);
        }
        // MaxSim against a direct computation from the core's token vectors.
        var q =
            encoder
                .core()
                .encodeMultiVector("tiny-colbert", List.of("apple"), true, Cancellation.NEVER)
                .vectors()
                .getFirst();
        var d =
            encoder
                .core()
                .encodeMultiVector(
                    "tiny-colbert", List.of("cherry date"), false, Cancellation.NEVER)
                .vectors()
                .getFirst();
        int h = TinyModels.HIDDEN;
        double expected = 0;
        for (int i = 0; i < q.length / h; i++) {
          double best = Double.NEGATIVE_INFINITY;
          for (int j = 0; j < d.length / h; j++) {
            double dot = 0;
            for (int k = 0; k < h; k++) {
              dot += q[i * h + k] * d[j * h + k];
            }
            best = Math.max(best, dot);
          }
          expected += best;
        }
        var maxSim =
            core.rerank(
                "multivector:tiny-colbert",
                "apple",
                candidates,
                ScorePrecision.FP32,
                0,
                Cancellation.NEVER);
        assertThat(
                maxSim.documents().stream()
                    .filter(x -> x.docId().equals("b"))
                    .findFirst()
                    .orElseThrow()
                    .score())
            .isCloseTo((float) expected, within(1e-4f));
        // Dense: the exact-match candidate "apple" (same bag of tokens as the query minus the
        // prompt) ranks first.
        assertThat(
                core.rerank(
                        "dense:tiny-dense",
                        "apple",
                        candidates,
                        ScorePrecision.FP32,
                        0,
                        Cancellation.NEVER)
                    .documents())
            .extracting(RerankCore.Scored::score)
            .isSortedAccordingTo(java.util.Comparator.reverseOrder());
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
