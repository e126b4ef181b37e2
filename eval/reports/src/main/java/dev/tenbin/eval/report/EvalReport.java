package dev.tenbin.eval.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionsText;
import dev.tenbin.eval.provenance.RunProvenance;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of {@code tenbin eval}: one JSON object (the stable contract of {@code --json}) or a
 * terminal table.
 *
 * @param provenance per run (same index), its cell's fingerprint and versions; empty when unknown
 * @param positions per run (same index), its PosIR position analysis ({@code --positions}); empty
 *     when not asked for
 */
public record EvalReport(
    String dataset,
    String language,
    String languageSource,
    List<CellResult> runs,
    List<String> warnings,
    List<RunProvenance> provenance,
    List<PositionAnalysis> positions) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public EvalReport {
    if (!provenance.isEmpty() && provenance.size() != runs.size()) {
      throw new IllegalArgumentException("one provenance per run");
    }
    if (!positions.isEmpty() && positions.size() != runs.size()) {
      throw new IllegalArgumentException("one position analysis per run");
    }
  }

  public EvalReport(
      String dataset,
      String language,
      String languageSource,
      List<CellResult> runs,
      List<String> warnings,
      List<RunProvenance> provenance) {
    this(dataset, language, languageSource, runs, warnings, provenance, List.of());
  }

  public EvalReport(
      String dataset,
      String language,
      String languageSource,
      List<CellResult> runs,
      List<String> warnings) {
    this(dataset, language, languageSource, runs, warnings, List.of(), List.of());
  }

  public ObjectNode toJsonTree() {
    ObjectNode root = JSON.createObjectNode();
    root.put("dataset", dataset);
    root.put("language", language);
    root.put("language_source", languageSource);
    ArrayNode runArray = root.putArray("runs");
    for (int i = 0; i < runs.size(); i++) {
      CellResult run = runs.get(i);
      ObjectNode node = runArray.addObject();
      node.put("retriever", run.retriever());
      node.put("variant", run.variant());
      node.put("mode", run.mode().wireName());
      node.put("num_queries", run.numQueries());
      ObjectNode metrics = node.putObject("metrics");
      run.metrics().forEach(metrics::put);
      ObjectNode tieAware = node.putObject("tie_aware");
      for (Map.Entry<String, TieAwareValue> entry : run.tieAware().entrySet()) {
        TieAwareValue value = entry.getValue();
        ObjectNode metric = tieAware.putObject(entry.getKey());
        metric.put("expected", value.expected());
        metric.put("min", value.min());
        metric.put("max", value.max());
        metric.put("range", value.range());
        metric.put("bias", value.bias());
      }
      ObjectNode timings = node.putObject("timings_ms");
      run.timings().asMap().forEach(timings::put);
      if (!run.diagnostics().isEmpty()) {
        node.set("diagnostics", JSON.valueToTree(run.diagnostics().asMap()));
      }
      if (!provenance.isEmpty()) {
        node.put("fingerprint", provenance.get(i).fingerprint());
        ObjectNode versions = node.putObject("versions");
        provenance.get(i).versions().forEach(versions::put);
      }
      if (!positions.isEmpty()) {
        node.set("positions", ResultStore.JSON.valueToTree(positions.get(i)));
      }
    }
    ArrayNode warningArray = root.putArray("warnings");
    warnings.forEach(warningArray::add);
    return root;
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(toJsonTree());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A fixed-width table: one row per run, one column per metric. The text columns are as wide as
   * their longest value (at least the former 28/10/10), so long names keep the columns aligned.
   */
  public String toTable() {
    StringBuilder table = new StringBuilder();
    table.append(String.format(Locale.ROOT, "dataset %s (language %s)%n", dataset, language));
    if (runs.isEmpty()) {
      return table.toString();
    }
    List<String> metricNames = List.copyOf(runs.getFirst().metrics().keySet());
    int retrieverWidth = 28;
    int variantWidth = 10;
    int modeWidth = 10;
    for (CellResult run : runs) {
      retrieverWidth = Math.max(retrieverWidth, run.retriever().length());
      variantWidth = Math.max(variantWidth, run.variant().length());
      modeWidth = Math.max(modeWidth, run.mode().wireName().length());
    }
    String rowFormat = "%-" + retrieverWidth + "s %-" + variantWidth + "s %-" + modeWidth + "s %7";
    table.append(
        String.format(Locale.ROOT, rowFormat + "s", "retriever", "variant", "mode", "queries"));
    for (String name : metricNames) {
      table.append(String.format(Locale.ROOT, " %12s", name));
    }
    table.append(System.lineSeparator());
    for (CellResult run : runs) {
      table.append(
          String.format(
              Locale.ROOT,
              rowFormat + "d",
              run.retriever(),
              run.variant(),
              run.mode().wireName(),
              run.numQueries()));
      for (String name : metricNames) {
        table.append(String.format(Locale.ROOT, " %12.4f", run.metrics().get(name)));
      }
      table.append(System.lineSeparator());
    }
    for (int i = 0; i < positions.size(); i++) {
      table.append(
          PositionsText.table(
              runs.get(i).retriever() + " " + runs.get(i).variant(), positions.get(i)));
    }
    return table.toString();
  }
}
