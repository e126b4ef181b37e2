package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tenbin.core.Sha256;
import dev.tenbin.scoring.ScoringRevision;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.testing.data.TinyBeir;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reminds to bump {@link ScoringRevision} when ranking or metric code changes what it computes: a
 * golden digest of the outputs of the real code on fixed inputs (every standard metric and its
 * tie-aware values in both run orders on a hand-made run with ties, and a whole BM25 {@code tenbin
 * eval} with its TREC run file) is stored with the revision it belongs to in {@code
 * scoring-revision.properties}. Outputs, not sources, are hashed: reformatting or refactoring the
 * code keeps the digest; changing a result does not.
 */
class ScoringRevisionTest {
  private static final ObjectMapper CANONICAL =
      JsonMapper.builder()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
          .build();

  @TempDir Path tmp;

  @Test
  void rankingsAndMetricsOnFixedInputsMatchTheGoldenDigestOfTheCurrentScoringRevision()
      throws Exception {
    Map<String, Object> outputs = new LinkedHashMap<>();
    outputs.put("metrics", metricOutputs());
    outputs.put("bm25_eval", bm25EvalOutputs());
    String digest =
        Sha256.hex(
            CANONICAL.writeValueAsString(
                rounded(withoutAddedMetrics(CANONICAL.valueToTree(outputs)))));

    Properties golden = new Properties();
    try (InputStream in =
        ScoringRevisionTest.class.getResourceAsStream("/scoring-revision.properties")) {
      golden.load(in);
    }
    int goldenRevision = Integer.parseInt(golden.getProperty("revision"));
    String goldenDigest = golden.getProperty("digest");
    assertThat(ScoringRevision.CURRENT)
        .as(
            "ScoringRevision.CURRENT was bumped: set revision=%d and digest=%s in app/src/test/resources/scoring-revision.properties",
            ScoringRevision.CURRENT, digest)
        .isEqualTo(goldenRevision);
    assertThat(digest)
        .as(
            "the ranking or metric code now computes other results on fixed inputs than scoring revision %d did."
                + " If that is intended, bump ScoringRevision.CURRENT to %d (stale stored cells are then recomputed) and set"
                + " revision=%d and digest=%s in app/src/test/resources/scoring-revision.properties;"
                + " if not, it is a regression",
            goldenRevision, goldenRevision + 1, goldenRevision + 1, digest)
        .isEqualTo(goldenDigest);
  }

  /**
   * Metrics added to the suite within a revision: they add a value to new cells and change none of
   * the others, so they leave the digest (and every fingerprint) as it was. Their own values are
   * pinned by hand-computed tests ({@code TrecEvalSemanticsTest}, {@code TieAwareExamplesTest}).
   */
  private static final java.util.Set<String> ADDED_WITHIN_REVISION =
      java.util.Set.of("precision@10");

  private static JsonNode withoutAddedMetrics(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = CANONICAL.createObjectNode();
      node.fieldNames()
          .forEachRemaining(
              name -> {
                if (!ADDED_WITHIN_REVISION.contains(name)) {
                  out.set(name, withoutAddedMetrics(node.get(name)));
                }
              });
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = CANONICAL.createArrayNode();
      node.forEach(element -> out.add(withoutAddedMetrics(element)));
      return out;
    }
    return node;
  }

  /**
   * Numbers to 10 significant digits, so a last-ulp difference of {@code Math.log} between
   * platforms does not move the digest while any real change does.
   */
  private static JsonNode rounded(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = CANONICAL.createObjectNode();
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.stream().sorted().forEach(name -> out.set(name, rounded(node.get(name))));
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = CANONICAL.createArrayNode();
      node.forEach(element -> out.add(rounded(element)));
      return out;
    }
    if (node.isFloatingPointNumber()) {
      return TextNode.valueOf(String.format(Locale.ROOT, "%.10g", node.asDouble()));
    }
    return node;
  }

  /** Every standard metric, plain and tie-aware, per query and mean, on a graded run with ties. */
  private static Map<String, Object> metricOutputs() {
    Qrels qrels =
        Qrels.of(
            Map.of(
                "q1", Map.of("d1", 1, "d3", 2, "d7", 1, "d9", 0),
                "q2", Map.of("d2", 1),
                "q3", Map.of("d5", 3, "d6", 1),
                "q4", Map.of("d8", 1)));
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    run.put(
        "q1",
        List.of(
            doc("d1", 0.9f),
            doc("d2", 0.7f),
            doc("d3", 0.7f),
            doc("d4", 0.7f),
            doc("d7", 0.2f),
            doc("d9", 0.1f)));
    run.put("q2", List.of(doc("d1", 2f), doc("d3", 1.5f), doc("d2", 1.5f)));
    List<ScoredDoc> long3 = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      long3.add(doc("x" + i, 100 - i / 3));
    }
    long3.add(12, doc("d6", 96));
    long3.add(doc("d5", -1));
    run.put("q3", long3);
    Map<String, Object> out = new TreeMap<>();
    for (RunOrder order : RunOrder.values()) {
      var evaluation =
          RankingEvaluator.standard().evaluate(qrels, run, List.of("q1", "q2", "q3", "q4"), order);
      out.put(
          order.name(),
          List.of(
              evaluation.means(),
              evaluation.tieAware(),
              evaluation.perQuery(),
              evaluation.perQueryTieAware()));
    }
    return out;
  }

  private static ScoredDoc doc(String id, float score) {
    return new ScoredDoc(id, score);
  }

  /** {@code tenbin eval --retriever bm25}: metrics, tie-aware values and the written run file. */
  private Map<String, Object> bm25EvalOutputs() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path out = tmp.resolve("out");
    CliRunner eval =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "bm25",
            "--json",
            "--out",
            out.toString());
    assertThat(eval.exitCode()).as(eval.err()).isZero();
    JsonNode run = new ObjectMapper().readTree(eval.out()).get("runs").get(0);
    Map<String, Object> outputs = new TreeMap<>();
    outputs.put("metrics", run.get("metrics"));
    outputs.put("tie_aware", run.get("tie_aware"));
    outputs.put("num_queries", run.get("num_queries"));
    try (Stream<Path> files = Files.list(out.resolve("runs"))) {
      for (Path file : files.sorted().toList()) {
        // each line's score to 6 significant digits (Lucene's BM25 idf uses Math.log): ids and
        // order exact
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          String[] columns = line.split(" ");
          columns[4] = String.format(Locale.ROOT, "%.6g", Double.parseDouble(columns[4]));
          lines.add(String.join(" ", columns));
        }
        outputs.put(file.getFileName().toString(), lines);
      }
    }
    return outputs;
  }
}
