package dev.tenbin.encoder.grpc;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.BatchInvariance;
import dev.tenbin.encoder.EncodeResult;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.model.card.DecoderSettings;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.onnx.OnnxEnvironment;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Metadata;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.encoder.v1.DecoderInputs;
import dev.tenbin.proto.encoder.v1.EncodingPolicy;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.OutputKind;
import dev.tenbin.proto.encoder.v1.PaddingSide;
import dev.tenbin.proto.encoder.v1.Pooling;

/** Conversions between the encoder core's records and {@code tenbin.encoder.v1} messages. */
final class ProtoConversions {
  private ProtoConversions() {}

  static boolean isQuery(InputRole role) {
    return switch (role) {
      case INPUT_ROLE_QUERY -> true;
      case INPUT_ROLE_DOCUMENT -> false;
      default ->
          throw new InvalidInputException(
              "role", "role must be INPUT_ROLE_QUERY or INPUT_ROLE_DOCUMENT");
    };
  }

  static DenseVector dense(float[] values) {
    DenseVector.Builder vector = DenseVector.newBuilder();
    for (float v : values) {
      vector.addValues(v);
    }
    return vector.build();
  }

  static dev.tenbin.proto.common.v1.SparseVector sparse(SparseVector vector) {
    dev.tenbin.proto.common.v1.SparseVector.Builder out =
        dev.tenbin.proto.common.v1.SparseVector.newBuilder();
    for (int i = 0; i < vector.indices().length; i++) {
      out.addIndices(vector.indices()[i]).addValues(vector.values()[i]);
    }
    return out.build();
  }

  static Metadata metadata(EncodeResult<?> result) {
    return Metadata.newBuilder()
        .setTokenizeNanos(result.tokenizeNanos())
        .setQueueNanos(result.queueNanos())
        .setInferenceNanos(result.inferenceNanos())
        .setInputTokens(result.inputTokens())
        .setPaddedTokens(result.paddedTokens())
        .setBatchCount(result.batches())
        .build();
  }

  /**
   * Where outputs are computed: the runtime's provider and device, this process's ONNX Runtime
   * release and the model's files hash (empty when the model is not loaded).
   */
  static RuntimeProvenance provenance(OnnxModel.RuntimeOptions runtime, String modelSha256) {
    return RuntimeProvenance.newBuilder()
        .setExecutionProvider(runtime.provider())
        .setDevice(runtime.device())
        .setDeviceId(runtime.deviceId())
        .setOnnxruntimeVersion(OnnxEnvironment.version())
        .setModelSha256(modelSha256)
        .build();
  }

  static dev.tenbin.proto.encoder.v1.ModelCard card(ModelCard card, String dtype) {
    return dev.tenbin.proto.encoder.v1.ModelCard.newBuilder()
        .setId(card.id())
        .setRevision(card.revision())
        .setSource(card.source())
        .setOnnxFile(card.onnxFile())
        .setTokenizerFile(card.tokenizerFile())
        .setPooling(Pooling.valueOf("POOLING_" + card.pooling().name()))
        .setNormalize(card.normalize())
        .setDimension(card.dimension())
        .addAllMatryoshkaDimensions(card.matryoshkaDimensions())
        .setMaxLength(card.maxLength())
        .setQueryPrompt(card.queryPrompt())
        .setDocumentPrompt(card.documentPrompt())
        .setOutputKind(OutputKind.valueOf("OUTPUT_KIND_" + card.outputKind().name()))
        .setTotalParameters(card.totalParameters())
        .setActiveParameters(card.activeParameters())
        .setResolvedSha(card.resolvedSha())
        .setDtype(dtype == null ? "" : dtype)
        .setDecoder(decoderInputs(card.decoderSettings()))
        .build();
  }

  /** The batch-invariance probe of a model's load and its encoding policy. */
  static dev.tenbin.proto.encoder.v1.BatchInvariance batchInvariance(BatchInvariance probe) {
    return dev.tenbin.proto.encoder.v1.BatchInvariance.newBuilder()
        .setInvariant(probe.invariant())
        .setPolicy(
            switch (probe.policy()) {
              case BATCHED -> EncodingPolicy.ENCODING_POLICY_BATCHED;
              case ONE_TEXT_PER_PASS -> EncodingPolicy.ENCODING_POLICY_ONE_TEXT_PER_PASS;
            })
        .setCompared(probe.compared())
        .setComparedOutputs(probe.comparedOutputs())
        .setDifferingOutputs(probe.differingOutputs())
        .setMaxAbsDifference(probe.maxAbsDifference())
        .build();
  }

  static DecoderInputs decoderInputs(DecoderSettings settings) {
    return DecoderInputs.newBuilder()
        .setPaddingSide(
            switch (settings.paddingSide()) {
              case LEFT -> PaddingSide.PADDING_SIDE_LEFT;
              case RIGHT -> PaddingSide.PADDING_SIDE_RIGHT;
            })
        .setEosToken(settings.eosToken())
        .setQueryTemplate(settings.queryTemplate())
        .setDocumentTemplate(settings.documentTemplate())
        .setTask(settings.task())
        .build();
  }
}
