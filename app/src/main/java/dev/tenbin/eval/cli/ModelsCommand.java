package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.eval.cache.CacheKey;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.encoder.v1.BatchInvariance;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin models}: the encoder's models as it loads them: output kind, width, dtype,
 * execution provider, and the batch-invariance probe of the load with the encoding policy that
 * follows (GetModelInfo).
 */
@Command(
    name = "models",
    mixinStandardHelpOptions = true,
    description = {
      "List the encoder's models (the embedded encoder, or --encoder-endpoint) as they load: output"
          + " kind, width, dtype, execution provider, whether the model is batch-invariant there"
          + " (probed at load: fixed texts alone and inside mixed, padded passes, compared bit for"
          + " bit) and the encoding policy that follows (batched, or one text per pass).",
      "A model not loaded before is loaded once to answer; its answer is remembered in"
          + " --cache-dir for later calls."
    })
public final class ModelsCommand implements Callable<Integer> {
  private static final Duration DEADLINE = Duration.ofMinutes(10);

  @Option(
      names = "--model",
      paramLabel = "ID",
      description = "Only this model (repeatable; default: every model the encoder lists).")
  List<String> models = new ArrayList<>();

  @Option(names = "--json", description = "One JSON array, an object per model.")
  boolean json;

  @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
  ServiceOptions serviceOptions = new ServiceOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    List<GetModelInfoResponse> infos = new ArrayList<>();
    try (Services services = serviceOptions.toOptions().connect()) {
      EncoderClient encoder = services.encoder().withDeadline(DEADLINE);
      List<String> ids =
          models.isEmpty() ? encoder.listModels().stream().map(ModelCard::getId).toList() : models;
      for (String id : ids) {
        infos.add(encoder.modelInfo(id));
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ArrayNode array = new ObjectMapper().createArrayNode();
      infos.forEach(info -> array.add(toJson(info)));
      out.println(array);
    } else {
      out.println(
          "model\tkind\tdimension\tdtype\tprovider\tbatch_invariant\tencoding_policy\tprobe");
      for (GetModelInfoResponse info : infos) {
        ModelCard card = info.getCard();
        BatchInvariance probe = info.getBatchInvariance();
        out.printf(
            Locale.ROOT,
            "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s%n",
            card.getId(),
            kind(card),
            card.getDimension(),
            card.getDtype(),
            info.getExecutionProvider(),
            !info.hasBatchInvariance() ? "-" : probe.getInvariant() ? "yes" : "no",
            CacheKey.encodingPolicy(info),
            probe.getCompared().isEmpty() ? "-" : probe.getCompared());
      }
    }
    out.flush();
    return 0;
  }

  private static String kind(ModelCard card) {
    return card.getOutputKind().name().replace("OUTPUT_KIND_", "").toLowerCase(Locale.ROOT);
  }

  private static ObjectNode toJson(GetModelInfoResponse info) {
    ModelCard card = info.getCard();
    BatchInvariance probe = info.getBatchInvariance();
    ObjectNode node = new ObjectMapper().createObjectNode();
    node.put("model", card.getId());
    node.put("kind", kind(card));
    node.put("dimension", card.getDimension());
    node.put("dtype", card.getDtype());
    node.put("execution_provider", info.getExecutionProvider());
    node.put("device", info.getProvenance().getDevice());
    if (info.hasBatchInvariance()) {
      node.put("batch_invariant", probe.getInvariant());
    } else {
      node.putNull("batch_invariant");
    }
    node.put("encoding_policy", CacheKey.encodingPolicy(info));
    node.put("probe", probe.getCompared());
    node.put("probe_differing_outputs", probe.getDifferingOutputs());
    node.put("probe_max_abs_difference", probe.getMaxAbsDifference());
    return node;
  }
}
