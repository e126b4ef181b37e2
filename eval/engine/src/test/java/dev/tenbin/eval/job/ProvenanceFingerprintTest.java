package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.provenance.Probes;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.encoder.v1.BatchInvariance;
import dev.tenbin.proto.encoder.v1.EncodingPolicy;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.ScoreHead;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Where a model runs is part of its cells' identity: a cell computed on the CPU is never reused for
 * CUDA, nor under another device, ONNX Runtime release or other model files; the probe checksum is
 * stored with the cell but does not name it.
 */
class ProvenanceFingerprintTest {
  private static final String SPEC =
      """
      name: j
      task_sets: [tasks.yaml]
      retrievers: [dense:m]
      rerankers: [cross/enc]
      candidates: {dense_model: m, sets: [bm25]}
      """;

  private static final RuntimeProvenance CPU =
      RuntimeProvenance.newBuilder()
          .setExecutionProvider("CPU")
          .setDevice("cpu/amd64")
          .setOnnxruntimeVersion("1.29.0")
          .setModelSha256("a".repeat(64))
          .build();

  private static final Probes.Checksum PROBES = Probes.scores(new float[] {0.25f, 0.5f});

  private static GetModelInfoResponse encoder(RuntimeProvenance provenance) {
    return GetModelInfoResponse.newBuilder()
        .setCard(ModelCard.newBuilder().setId("m").setRevision("r1").setDimension(8))
        .setExecutionProvider(provenance.getExecutionProvider())
        .setProvenance(provenance)
        .build();
  }

  private static RerankerInfo reranker(RuntimeProvenance provenance) {
    return RerankerInfo.newBuilder()
        .setId("cross/enc")
        .setRevision("r2")
        .setHead(ScoreHead.SCORE_HEAD_SIGMOID)
        .setProvenance(provenance)
        .build();
  }

  /** The planned cells (system/variant/mode to cell) under the given facts. */
  private static Map<String, PlannedCell> cells(ModelFacts encoder, ModelFacts reranker) {
    Map<String, PlannedCell> cells = new java.util.LinkedHashMap<>();
    for (PlannedCell cell :
        PlanFixtures.cells(
            PlanFixtures.plan(
                SPEC, id -> encoder, id -> reranker, PlanFixtures.emptyTask("sha-1")))) {
      cells.put(cell.key().system().name() + "/" + cell.key().mode(), cell);
    }
    return cells;
  }

  private static String denseFingerprint(RuntimeProvenance provenance, Probes.Checksum probes) {
    return cells(
            JobLauncher.encoderFacts(encoder(provenance), probes),
            JobLauncher.rerankerFacts(reranker(CPU), PROBES))
        .get("dense:m/retrieval")
        .fingerprint();
  }

  private static String crossFingerprint(RuntimeProvenance provenance) {
    return cells(
            JobLauncher.encoderFacts(encoder(CPU), PROBES),
            JobLauncher.rerankerFacts(reranker(provenance), PROBES))
        .get("rerank-cross:cross/enc/rerank")
        .fingerprint();
  }

  private static RuntimeProvenance changed(UnaryOperator<RuntimeProvenance.Builder> change) {
    return change.apply(CPU.toBuilder()).build();
  }

  @Test
  void aCpuCellIsNotTheCellOfCudaAnotherDeviceRuntimeOrModelFiles() {
    String cpu = denseFingerprint(CPU, PROBES);

    assertThat(denseFingerprint(CPU, PROBES)).as("same inputs").isEqualTo(cpu);
    assertThat(
            List.of(
                denseFingerprint(
                    changed(p -> p.setExecutionProvider("CUDA").setDevice("cuda/NVIDIA H100")),
                    PROBES),
                denseFingerprint(changed(p -> p.setDevice("cpu/aarch64")), PROBES),
                denseFingerprint(changed(p -> p.setOnnxruntimeVersion("1.30.0")), PROBES),
                denseFingerprint(changed(p -> p.setModelSha256("b".repeat(64))), PROBES)))
        .doesNotContain(cpu)
        .doesNotHaveDuplicates();
  }

  @Test
  void theDeviceIndexAndTheProbeChecksumDoNotNameTheCellButAreStoredWithIt() {
    String cpu = denseFingerprint(CPU, PROBES);
    Probes.Checksum otherProbes = Probes.scores(new float[] {0.75f});

    assertThat(denseFingerprint(CPU, otherProbes)).isEqualTo(cpu);
    assertThat(denseFingerprint(changed(p -> p.setDeviceId(3)), PROBES)).isEqualTo(cpu);

    Map<String, String> versions =
        cells(
                JobLauncher.encoderFacts(encoder(CPU), otherProbes),
                JobLauncher.rerankerFacts(reranker(CPU), PROBES))
            .get("dense:m/retrieval")
            .versions();
    assertThat(versions)
        .containsEntry("probe_set", Probes.SET)
        .containsEntry("probe_sha256", otherProbes.sha256())
        .containsEntry("probe_head", "0.75")
        .containsEntry("model_sha256", "a".repeat(64))
        .containsEntry("onnxruntime_provider", "CPU")
        .containsEntry("onnxruntime_device", "cpu/amd64")
        .containsEntry("onnxruntime_version", "1.29.0");
  }

  @Test
  void crossEncoderCellsAreSeparatedByTheRerankServicesProvenanceToo() {
    String cpu = crossFingerprint(CPU);

    assertThat(crossFingerprint(CPU)).isEqualTo(cpu);
    assertThat(crossFingerprint(changed(p -> p.setExecutionProvider("CUDA").setDevice("cuda"))))
        .isNotEqualTo(cpu);
    assertThat(crossFingerprint(changed(p -> p.setModelSha256("c".repeat(64))))).isNotEqualTo(cpu);
    assertThat(
            cells(
                    JobLauncher.encoderFacts(encoder(CPU), PROBES),
                    JobLauncher.rerankerFacts(reranker(CPU), PROBES))
                .get("rerank-cross:cross/enc/rerank")
                .versions())
        .containsEntry("onnxruntime_provider", "CPU")
        .containsEntry("probe_sha256", PROBES.sha256());
  }

  private static PlannedCell denseCell(GetModelInfoResponse info) {
    return cells(
            JobLauncher.encoderFacts(info, PROBES),
            JobLauncher.rerankerFacts(reranker(CPU), PROBES))
        .get("dense:m/retrieval");
  }

  private static GetModelInfoResponse probed(EncodingPolicy policy) {
    return encoder(CPU).toBuilder()
        .setBatchInvariance(BatchInvariance.newBuilder().setPolicy(policy))
        .build();
  }

  @Test
  void aModelEncodedOneTextPerPassHasOtherCellsThanWhenItWasBatched() {
    PlannedCell unprobed = denseCell(encoder(CPU));
    PlannedCell batched = denseCell(probed(EncodingPolicy.ENCODING_POLICY_BATCHED));
    PlannedCell single = denseCell(probed(EncodingPolicy.ENCODING_POLICY_ONE_TEXT_PER_PASS));

    // Batched, the policy of every cell before the encoder probed, keeps the fingerprint.
    assertThat(batched.fingerprint()).isEqualTo(unprobed.fingerprint());
    assertThat(single.fingerprint()).isNotEqualTo(batched.fingerprint());
    assertThat(batched.versions()).containsEntry("encoding_policy", "batched");
    assertThat(single.versions()).containsEntry("encoding_policy", "one-text-per-pass");
  }
}
