package dev.tenbin.integration.provenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.eval.provenance.Probes;
import dev.tenbin.proto.encoder.v1.OutputKind;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbesTest {
  @TempDir Path tmp;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable closeable : open.reversed()) {
      closeable.close();
    }
  }

  /** A client of a fresh in-process encoder over the tiny models: one "run". */
  private EncoderClient freshEncoder(Path models) {
    String name = "encoder-" + UUID.randomUUID();
    open.add(
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("cache")),
            new SimpleMeterRegistry()));
    ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    open.add(channel::shutdownNow);
    return EncoderClient.of(channel);
  }

  @Test
  void twoRunsOfTheSameModelGiveTheSameProbeChecksumsForEveryOutputKind() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    Map<String, OutputKind> kinds = new LinkedHashMap<>();
    kinds.put("tiny-dense", OutputKind.OUTPUT_KIND_DENSE);
    kinds.put("tiny-splade", OutputKind.OUTPUT_KIND_SPARSE);
    kinds.put("tiny-colbert", OutputKind.OUTPUT_KIND_MULTIVECTOR);

    EncoderClient first = freshEncoder(models);
    EncoderClient second = freshEncoder(models);
    List<String> hashes = new ArrayList<>();
    for (Map.Entry<String, OutputKind> model : kinds.entrySet()) {
      Probes.Checksum a = Probes.encode(first, model.getKey(), model.getValue());
      Probes.Checksum b = Probes.encode(second, model.getKey(), model.getValue());
      assertThat(b).as(model.getKey()).isEqualTo(a);
      assertThat(a.sha256()).hasSize(64);
      assertThat(a.head().split(",")).as(model.getKey()).hasSizeBetween(1, Probes.HEAD);
      hashes.add(a.sha256());
    }
    assertThat(hashes).doesNotHaveDuplicates();

    float[] firstVector =
        first.encodeDense("tiny-dense", List.of(Probes.TEXTS.getFirst()), false, 0).getFirst();
    assertThat(Probes.encode(first, "tiny-dense", OutputKind.OUTPUT_KIND_DENSE).head())
        .as("the head is the first values of the first probe")
        .startsWith(Float.toString(firstVector[0]) + "," + Float.toString(firstVector[1]));
  }

  @Test
  void oneUlpAnywhereChangesTheHashButTheHeadShowsOnlyTheFirstValues() {
    float[] a = {0.25f, -0.5f, 0.125f};
    float[] b = {0.25f, -0.5f, Math.nextUp(0.125f)};
    float[] c = {0.5f};

    Probes.Checksum reference = Probes.dense(List.of(a, c));
    assertThat(Probes.dense(List.of(a.clone(), c.clone()))).isEqualTo(reference);
    assertThat(Probes.dense(List.of(b, c)).sha256()).isNotEqualTo(reference.sha256());
    assertThat(Probes.dense(List.of(c, a)).sha256())
        .as("order of the probes matters")
        .isNotEqualTo(reference.sha256());
    assertThat(reference.head()).isEqualTo("0.25,-0.5,0.125");
    assertThat(Probes.scores(new float[] {1f, 2f}).sha256())
        .isNotEqualTo(Probes.scores(new float[] {2f, 1f}).sha256());
  }

  @Test
  void sparseChecksumsDoNotDependOnTheMapsIterationOrder() {
    Map<Integer, Float> ascending = new LinkedHashMap<>();
    ascending.put(3, 0.5f);
    ascending.put(9, 1.5f);
    Map<Integer, Float> descending = new LinkedHashMap<>();
    descending.put(9, 1.5f);
    descending.put(3, 0.5f);

    assertThat(Probes.sparse(List.of(descending))).isEqualTo(Probes.sparse(List.of(ascending)));
    assertThat(Probes.sparse(List.of(ascending)).head()).isEqualTo("0.5,1.5");
    assertThat(Probes.sparse(List.of(Map.of(3, 0.5f, 10, 1.5f))).sha256())
        .as("another index")
        .isNotEqualTo(Probes.sparse(List.of(ascending)).sha256());
  }

  @Test
  void storedVersionsNameTheProbeSet() {
    Probes.Checksum checksum = Probes.scores(new float[] {0.5f});
    assertThat(checksum.versions())
        .containsEntry("probe_set", Probes.SET)
        .containsEntry("probe_sha256", checksum.sha256())
        .containsEntry("probe_head", "0.5");
  }
}
