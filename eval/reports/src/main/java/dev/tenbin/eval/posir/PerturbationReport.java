package dev.tenbin.eval.posir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.positions.PositionStatistics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The perturbation test's result: per system (retriever, variant, mode) its nDCG@10 and recall@100
 * at each position of a {@link PerturbationBuilder} build, read from the {@code tenbin eval --json}
 * outputs of the position folders, and the PSI of nDCG@10 across positions ({@code 1 - min/max}).
 */
public final class PerturbationReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One system's metrics by position (null where it was not evaluated at that position). */
  public record Row(String system, List<Double> ndcgAt10, List<Double> recallAt100, Double psi) {}

  private final List<Double> positions;
  private final List<Row> rows;

  private PerturbationReport(List<Double> positions, List<Row> rows) {
    this.positions = positions;
    this.rows = rows;
  }

  /**
   * Reads {@code built/posir.json} and the eval outputs; an output of a folder not in the build is
   * an error naming it.
   */
  public static PerturbationReport read(Path built, List<Path> evalOutputs) {
    JsonNode manifest = readJson(built.resolve(PerturbationBuilder.MANIFEST));
    List<Double> positions = new ArrayList<>();
    Map<String, Integer> byFolder = new LinkedHashMap<>();
    for (JsonNode entry : manifest.get("positions")) {
      byFolder.put(entry.get("folder").asText(), positions.size());
      positions.add(entry.get("position").asDouble());
    }
    Map<String, Double[][]> values = new LinkedHashMap<>();
    for (Path output : evalOutputs) {
      JsonNode eval = readJson(output);
      String dataset = eval.path("dataset").asText();
      Integer index = byFolder.get(dataset);
      if (index == null) {
        throw new InvalidInputException(
            "EVAL_JSON",
            output + " evaluates '" + dataset + "', not a position folder of " + built);
      }
      for (JsonNode run : eval.get("runs")) {
        String system =
            run.get("retriever").asText()
                + " "
                + run.get("variant").asText()
                + (run.get("mode").asText().equals("retrieval")
                    ? ""
                    : " " + run.get("mode").asText());
        Double[][] cells = values.computeIfAbsent(system, s -> new Double[2][positions.size()]);
        cells[0][index] = run.get("metrics").get("ndcg@10").asDouble();
        cells[1][index] = run.get("metrics").get("recall@100").asDouble();
      }
    }
    List<Row> rows = new ArrayList<>();
    values.forEach(
        (system, cells) -> {
          List<Double> ndcg = java.util.Arrays.asList(cells[0]);
          double[] present = ndcg.stream().filter(v -> v != null).mapToDouble(v -> v).toArray();
          rows.add(
              new Row(
                  system,
                  ndcg,
                  java.util.Arrays.asList(cells[1]),
                  present.length == positions.size() ? PositionStatistics.psi(present) : null));
        });
    return new PerturbationReport(positions, rows);
  }

  public List<Double> positions() {
    return positions;
  }

  public List<Row> rows() {
    return rows;
  }

  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode positionArray = root.putArray("positions");
    positions.forEach(positionArray::add);
    ArrayNode systems = root.putArray("systems");
    for (Row row : rows) {
      ObjectNode node = systems.addObject();
      node.put("system", row.system());
      ArrayNode ndcg = node.putArray("ndcg@10");
      row.ndcgAt10().forEach(v -> add(ndcg, v));
      ArrayNode recall = node.putArray("recall@100");
      row.recallAt100().forEach(v -> add(recall, v));
      if (row.psi() == null) {
        node.putNull("psi");
      } else {
        node.put("psi", row.psi());
      }
    }
    return root.toString();
  }

  public String toTable() {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%-36s", "nDCG@10 at position"));
    positions.forEach(p -> out.append(String.format(Locale.ROOT, " %8.2f", p)));
    out.append(String.format(Locale.ROOT, " %8s%n", "PSI"));
    for (Row row : rows) {
      out.append(String.format(Locale.ROOT, "%-36s", row.system()));
      row.ndcgAt10()
          .forEach(
              v -> out.append(v == null ? "        -" : String.format(Locale.ROOT, " %8.4f", v)));
      out.append(row.psi() == null ? "        -" : String.format(Locale.ROOT, " %8.4f", row.psi()));
      out.append(System.lineSeparator());
    }
    return out.toString();
  }

  private static void add(ArrayNode array, Double value) {
    if (value == null) {
      array.addNull();
    } else {
      array.add(value);
    }
  }

  private static JsonNode readJson(Path file) {
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new InvalidInputException("EVAL_JSON", "cannot read " + file + ": " + e.getMessage());
    }
  }
}
