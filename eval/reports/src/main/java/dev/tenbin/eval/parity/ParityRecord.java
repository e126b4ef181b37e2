package dev.tenbin.eval.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A parity certificate as {@code tenbin parity --out} wrote it, read back for a leaderboard: the
 * certificates a job folder keeps under {@value #FOLDER}/ are shown with its leaderboards.
 *
 * @param file the certificate's file name
 * @param dataset the collection compared on
 * @param a condition A, described
 * @param b condition B, described
 * @param queries evaluated queries
 * @param delta Δ nDCG@10 (B − A) × 100
 * @param deltaLow its 95% interval's low end
 * @param deltaHigh its high end
 * @param randomizationP the paired randomization test's p, or null
 * @param top10ChangedAsSet queries whose top 10 differ as a set
 * @param top10ChangedInOrder queries whose top 10 differ in documents or order
 * @param documentMinCosine the smallest cosine of a document's two vectors, or null
 * @param documentMeanCosine their mean, or null
 * @param identical whether every vector was bit-identical
 */
public record ParityRecord(
    String file,
    String dataset,
    String a,
    String b,
    int queries,
    double delta,
    double deltaLow,
    double deltaHigh,
    Double randomizationP,
    int top10ChangedAsSet,
    int top10ChangedInOrder,
    Double documentMinCosine,
    Double documentMeanCosine,
    boolean identical) {

  /** The folder of a job that holds its parity certificates. */
  public static final String FOLDER = "parity";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The certificates under {@code jobDir/parity/*.json}, by file name; none when absent. */
  public static List<ParityRecord> readAll(Path jobDir) {
    Path folder = jobDir.resolve(FOLDER);
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    List<ParityRecord> records = new ArrayList<>();
    try (Stream<Path> files = Files.list(folder)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
        records.add(read(file));
      }
    } catch (IOException e) {
      throw new InvalidInputException("DIR", "cannot list " + folder + ": " + e.getMessage());
    }
    return List.copyOf(records);
  }

  /** One certificate file; a file that is not one is an {@link InvalidInputException}. */
  static ParityRecord read(Path file) {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new InvalidInputException(
          "DIR", file + " is not a parity certificate (JSON): " + e.getMessage());
    }
    JsonNode interval = root.path("delta_interval");
    if (!root.path("delta").isNumber() || !interval.isArray() || interval.size() != 2) {
      throw new InvalidInputException(
          "DIR", file + " is not a parity certificate: it lacks delta and delta_interval");
    }
    JsonNode documents = root.path("document_vectors");
    return new ParityRecord(
        file.getFileName().toString(),
        root.path("dataset").asText(""),
        root.path("a").asText(""),
        root.path("b").asText(""),
        root.path("queries").asInt(),
        root.path("delta").asDouble(),
        interval.get(0).asDouble(),
        interval.get(1).asDouble(),
        number(root.path("randomization_p")),
        root.path("top10_changed_as_set").asInt(),
        root.path("top10_changed_in_order").asInt(),
        number(documents.path("min_cosine")),
        number(documents.path("mean_cosine")),
        root.path("identical").asBoolean(false));
  }

  private static Double number(JsonNode node) {
    return node.isNumber() ? node.asDouble() : null;
  }

  /**
   * A certificate as the JSON {@code tenbin parity} prints and writes, which {@link #read} reads.
   */
  public static ObjectNode toJson(ServingParity.Certificate c) {
    ObjectNode root = JSON.createObjectNode();
    root.put("dataset", c.dataset());
    root.put("queries", c.queries());
    root.put("documents", c.documents());
    root.put("a", c.a());
    root.put("b", c.b());
    root.put("metric", ServingParity.METRIC);
    root.put("score_a", c.scoreA());
    root.put("score_b", c.scoreB());
    root.put("delta", c.delta());
    root.putArray("delta_interval").add(c.deltaLow()).add(c.deltaHigh());
    root.put("randomization_p", finite(c.test().randomizationP()));
    root.put("t_test_p", finite(c.test().tTestP()));
    root.put("top10_changed_as_set", c.top10ChangedAsSet());
    root.put("top10_changed_in_order", c.top10ChangedInOrder());
    vectors(root.putObject("document_vectors"), c.documentVectors());
    vectors(root.putObject("query_vectors"), c.queryVectors());
    root.put("identical", c.identical());
    return root;
  }

  private static void vectors(ObjectNode node, ServingParity.VectorAgreement v) {
    node.put("count", v.vectors());
    node.put("min_cosine", finite(v.minCosine()));
    node.put("mean_cosine", finite(v.meanCosine()));
    node.put("max_abs_difference", v.maxAbsDifference());
    node.put("identical", v.identical());
  }

  private static Double finite(double value) {
    return Double.isFinite(value) ? value : null;
  }
}
