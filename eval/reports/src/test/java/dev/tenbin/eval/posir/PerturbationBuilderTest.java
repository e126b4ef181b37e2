package dev.tenbin.eval.posir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Position is the only thing that changes between the perturbation tasks. */
class PerturbationBuilderTest {
  private static final List<Double> FIVE = List.of(0.0, 0.25, 0.5, 0.75, 1.0);

  @TempDir Path tmp;

  /** Twelve passages "passage N says word-N ...", one question each, its span the word. */
  private Path source() throws Exception {
    Path dir = tmp.resolve("source");
    Files.createDirectories(dir.resolve("qrels"));
    StringBuilder corpus = new StringBuilder();
    StringBuilder queries = new StringBuilder();
    StringBuilder qrels = new StringBuilder("query-id\tcorpus-id\tscore\n");
    StringBuilder spans = new StringBuilder("query-id\tcorpus-id\tstart\tend\n");
    for (int i = 0; i < 12; i++) {
      String text = "passage " + i + " says wörd" + i + " and more text " + "x".repeat(i);
      corpus.append(String.format("{\"_id\":\"p%02d\",\"text\":\"%s\"}%n", i, text));
      queries.append(String.format("{\"_id\":\"q%02d\",\"text\":\"what does %d say\"}%n", i, i));
      qrels.append(String.format("q%02d\tp%02d\t1%n", i, i));
      int start = text.indexOf("wörd");
      spans.append(
          String.format("q%02d\tp%02d\t%d\t%d%n", i, i, start, start + ("wörd" + i).length()));
    }
    Files.writeString(dir.resolve("corpus.jsonl"), corpus);
    Files.writeString(dir.resolve("queries.jsonl"), queries);
    Files.writeString(dir.resolve("qrels/test.tsv"), qrels);
    Files.writeString(dir.resolve("qrels/spans.tsv"), spans);
    return dir;
  }

  @Test
  void theGoldTextSitsAtTheShiftedSpanAtEveryPositionAmongTheSameDistractors() throws Exception {
    Path source = source();
    BeirDataset data = BeirDatasetReader.read(source);
    Path out = tmp.resolve("out");
    var built = PerturbationBuilder.build(data, source, FIVE, 3, 7, out);

    assertThat(built.folders())
        .extracting(f -> f.getFileName().toString())
        .containsExactly("pos-0.00", "pos-0.25", "pos-0.50", "pos-0.75", "pos-1.00");
    assertThat(built.documents()).as("half the passages are gold").isEqualTo(6);
    assertThat(built.queries()).isEqualTo(6);
    Map<String, List<String>> passagesAtFirst = null;
    for (int i = 0; i < FIVE.size(); i++) {
      BeirDataset task = BeirDatasetReader.read(built.folders().get(i));
      assertThat(task.corpus()).hasSize(6);
      Map<String, List<String>> passages = new TreeMap<>();
      for (String queryId : task.evaluatedQueryIds()) {
        AnswerSpan shifted = task.spans().span(queryId).orElseThrow();
        AnswerSpan original = data.spans().span(queryId).orElseThrow();
        String text = textOf(task, shifted.documentId());
        String gold = textOf(data, original.documentId());
        assertThat(slice(text, shifted)).isEqualTo(slice(gold, original));
        List<String> parts = List.of(text.split(PerturbationBuilder.SEPARATOR));
        assertThat(parts).hasSize(4);
        int slot = (int) Math.round(FIVE.get(i) * 3);
        assertThat(parts.get(slot)).isEqualTo(gold);
        List<String> distractors = new ArrayList<>(parts);
        distractors.remove(slot);
        assertThat(distractors).doesNotContain(gold);
        passages.put(shifted.documentId(), distractors);
        // No distractor is the gold passage of an evaluated question.
        for (String other : task.evaluatedQueryIds()) {
          assertThat(distractors)
              .doesNotContain(textOf(data, data.spans().span(other).orElseThrow().documentId()));
        }
      }
      if (passagesAtFirst == null) {
        passagesAtFirst = passages;
      } else {
        assertThat(passages).as("same distractors, same order").isEqualTo(passagesAtFirst);
      }
    }
    JsonNode manifest = new ObjectMapper().readTree(out.resolve("posir.json").toFile());
    assertThat(manifest.get("seed").asLong()).isEqualTo(7);
    assertThat(manifest.get("distractors").asInt()).isEqualTo(3);
    assertThat(manifest.get("positions").get(4).get("gold_slot").asInt()).isEqualTo(3);
    assertThat(manifest.get("documents")).hasSize(6);
  }

  @Test
  void theSameSeedWritesTheSameBytesAndAnotherSeedDrawsOtherwise() throws Exception {
    Path source = source();
    BeirDataset data = BeirDatasetReader.read(source);
    PerturbationBuilder.build(data, source, List.of(0.5), 3, 7, tmp.resolve("a"));
    PerturbationBuilder.build(data, source, List.of(0.5), 3, 7, tmp.resolve("b"));
    PerturbationBuilder.build(data, source, List.of(0.5), 3, 8, tmp.resolve("c"));
    byte[] a = Files.readAllBytes(tmp.resolve("a/pos-0.50/corpus.jsonl"));
    assertThat(Files.readAllBytes(tmp.resolve("b/pos-0.50/corpus.jsonl"))).isEqualTo(a);
    assertThat(Files.readAllBytes(tmp.resolve("c/pos-0.50/corpus.jsonl"))).isNotEqualTo(a);
  }

  @Test
  void withoutDistractorsTheDocumentIsTheGoldPassage() throws Exception {
    Path source = source();
    BeirDataset data = BeirDatasetReader.read(source);
    var built = PerturbationBuilder.build(data, source, List.of(0.0, 1.0), 0, 7, tmp.resolve("k0"));
    BeirDataset task = BeirDatasetReader.read(built.folders().get(1));
    String queryId = task.evaluatedQueryIds().getFirst();
    assertThat(task.spans().span(queryId).orElseThrow().start())
        .isEqualTo(data.spans().span(queryId).orElseThrow().start());
  }

  @Test
  void badRequestsAreRefusedNamingTheFlag() throws Exception {
    Path source = source();
    BeirDataset data = BeirDatasetReader.read(source);
    assertThatThrownBy(
            () -> PerturbationBuilder.build(data, source, List.of(1.5), 3, 7, tmp.resolve("x")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--positions must lie within 0..1");
    assertThatThrownBy(() -> PerturbationBuilder.build(data, source, FIVE, 7, 7, tmp.resolve("y")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--distractors 7 exceeds the 6 passages");
    assertThatThrownBy(() -> PerturbationBuilder.build(data, source, FIVE, 3, 7, source))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--out must be a new or empty folder");
    Files.delete(source.resolve("qrels/spans.tsv"));
    BeirDataset noSpans = BeirDatasetReader.read(source);
    assertThatThrownBy(
            () -> PerturbationBuilder.build(noSpans, source, FIVE, 3, 7, tmp.resolve("z")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs answer spans");
  }

  @Test
  void theReportGivesEachSystemsMetricPerPositionAndPsiAcrossThem() throws Exception {
    Path source = source();
    BeirDataset data = BeirDatasetReader.read(source);
    Path out = tmp.resolve("built");
    PerturbationBuilder.build(data, source, List.of(0.0, 0.5, 1.0), 3, 7, out);
    double[] ndcg = {0.8, 0.6, 0.4};
    List<Path> outputs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path file = tmp.resolve("eval-" + i + ".json");
      Files.writeString(
          file,
          String.format(
              java.util.Locale.ROOT,
              "{\"dataset\":\"%s\",\"runs\":[{\"retriever\":\"dense:m\",\"variant\":\"base\","
                  + "\"mode\":\"retrieval\",\"metrics\":{\"ndcg@10\":%s,\"recall@100\":1.0}}]}",
              PerturbationBuilder.folderName(new double[] {0.0, 0.5, 1.0}[i]),
              ndcg[i]));
      outputs.add(file);
    }
    PerturbationReport report = PerturbationReport.read(out, outputs.reversed());
    assertThat(report.rows()).hasSize(1);
    PerturbationReport.Row row = report.rows().getFirst();
    assertThat(row.system()).isEqualTo("dense:m base");
    assertThat(row.ndcgAt10()).containsExactly(0.8, 0.6, 0.4);
    assertThat(row.psi()).isCloseTo(0.5, org.assertj.core.api.Assertions.within(1e-12));
    assertThat(report.toJson()).contains("\"positions\":[0.0,0.5,1.0]").contains("\"psi\":0.5");

    Files.writeString(tmp.resolve("stray.json"), "{\"dataset\":\"xquad-en\",\"runs\":[]}");
    assertThatThrownBy(() -> PerturbationReport.read(out, List.of(tmp.resolve("stray.json"))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("not a position folder");
  }

  private static String textOf(BeirDataset data, String docId) {
    return data.corpus().stream()
        .filter(d -> d.id().equals(docId))
        .findFirst()
        .orElseThrow()
        .text();
  }

  private static String slice(String text, AnswerSpan span) {
    return text.substring(
        text.offsetByCodePoints(0, span.start()), text.offsetByCodePoints(0, span.end()));
  }
}
