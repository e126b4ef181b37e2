package dev.tenbin.eval.nano;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.nano.NanoSettings.HardNegatives;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nano-sets with mined hard negatives, filler sampled with the seed, and deduplicated documents.
 */
class NanoSetMiningTest {
  private static final List<MinerSpec> TWO_MINERS =
      List.of(MinerSpec.BM25, MinerSpec.parse("dense:fake"));

  @TempDir Path tmp;

  private static NanoSettings settings(
      int maxQueries, int maxDocuments, long seed, HardNegatives mode, int depth) {
    return new NanoSettings(maxQueries, maxDocuments, seed, mode, TWO_MINERS, depth);
  }

  /** Three queries, one positive each (p0..p2), and twenty other documents n0..n19. */
  private BeirDataset threeQueries() throws Exception {
    NanoBeir beir = new NanoBeir();
    for (int q = 0; q < 3; q++) {
      beir.query("q" + q, "question " + q)
          .document("p" + q, "answer " + q)
          .judge("q" + q, "p" + q, 1);
    }
    for (int n = 0; n < 20; n++) {
      beir.document("n" + n, "other passage " + n);
    }
    return beir.write(tmp.resolve("three"));
  }

  private static List<String> ids(Path nano) {
    return BeirDatasetReader.read(nano).corpus().stream().map(CorpusDocument::id).toList();
  }

  @Test
  void poolingOrdersByBestRankOverTheMinersThenByDocumentIdAndDropsPositives() {
    List<String> pooled =
        NegativePool.pool(
            List.of(List.of("p0", "n3", "n1", "n2"), List.of("n1", "n0", "n3")), Set.of("p0"));
    // n1: ranks 3 and 1 -> 1; n0: 2; n3: ranks 2 and 3 -> 2 (after n0 by id); n2: 4.
    assertThat(pooled).containsExactly("n1", "n0", "n3", "n2");
  }

  @Test
  void minedNegativesAreTakenRoundRobinAcrossQueriesInDrawnOrderUntilTheCap() throws Exception {
    BeirDataset source = threeQueries();
    // Pooled per query: q0 -> n1, n0, n3, n2; q1 -> n1, n6, n4; q2 -> n5.
    FixedMiner bm25 =
        new FixedMiner(
            "bm25",
            Map.of(
                "q0", List.of("p0", "n3", "n1", "n2"),
                "q1", List.of("n1", "n4"),
                "q2", List.of("n5")));
    FixedMiner dense =
        new FixedMiner(
            "dense:fake", Map.of("q0", List.of("n1", "n0", "n3"), "q1", List.of("n6", "n1")));
    Path out = tmp.resolve("nano");

    var summary =
        new NanoSetBuilder()
            .build(source, settings(200, 8, 5, HardNegatives.MINED, 50), List.of(bm25, dense), out);

    List<String> drawn = List.copyOf(BeirDatasetReader.read(out).queries().keySet());
    assertThat(drawn).containsExactly("q1", "q0", "q2");
    // Round 1: q1 takes n1; q0's n1 is in already, so q0 takes n0; q2 takes n5.
    // Round 2: q1 takes n6, q0 takes n3; the cap (8) is reached before q2 or q0's n2.
    assertThat(ids(out)).containsExactly("p1", "p0", "p2", "n1", "n0", "n5", "n6", "n3");
    assertThat(summary.positives()).isEqualTo(3);
    assertThat(summary.minedNegatives()).isEqualTo(5);
    assertThat(summary.judgedNegatives()).isZero();
    assertThat(summary.filler()).isZero();
    assertThat(summary.documents()).isEqualTo(8);
    // Each miner ranked the kept queries only, at the mining depth.
    assertThat(bm25.askedQueries).containsExactlyInAnyOrder("q0", "q1", "q2");
    assertThat(bm25.askedDepth).isEqualTo(50);
    assertThat(dense.calls).isEqualTo(1);
  }

  @Test
  void onlyTheTopDepthOfEachMinerIsPooled() throws Exception {
    BeirDataset source = threeQueries();
    FixedMiner bm25 =
        new FixedMiner("bm25", Map.of("q0", List.of("n0", "n1", "n2", "n3", "n4", "n5")));
    FixedMiner dense = new FixedMiner("dense:fake", Map.of("q0", List.of("n7", "n8", "n9")));
    Path out = tmp.resolve("nano");

    var summary =
        new NanoSetBuilder()
            .build(source, settings(200, 23, 5, HardNegatives.MINED, 2), List.of(bm25, dense), out);

    assertThat(summary.minedNegatives()).isEqualTo(4);
    assertThat(ids(out).subList(3, 7)).containsExactly("n0", "n7", "n1", "n8");
    assertThat(bm25.askedDepth).isEqualTo(2);
  }

  @Test
  void capsAreRespectedExactlyAndEveryKeptQueryKeepsAllItsPositives() throws Exception {
    NanoBeir beir = new NanoBeir();
    for (int q = 0; q < 10; q++) {
      beir.query("q" + q, "question " + q);
      for (int p = 0; p < 2; p++) {
        beir.document("q" + q + "p" + p, "answer " + q + " " + p)
            .judge("q" + q, "q" + q + "p" + p, 1);
      }
      for (int n = 0; n < 3; n++) {
        beir.document("q" + q + "n" + n, "wrong " + q + " " + n)
            .judge("q" + q, "q" + q + "n" + n, 0);
      }
    }
    BeirDataset source = beir.write(tmp.resolve("ten"));

    var summary =
        new NanoSetBuilder()
            .build(source, settings(4, 13, 9, HardNegatives.AUTO, 50), List.of(), tmp.resolve("a"));

    assertThat(summary.queries()).isEqualTo(4);
    assertThat(summary.positives()).isEqualTo(8);
    assertThat(summary.hardNegativeSource()).isEqualTo(HardNegatives.JUDGED);
    assertThat(summary.judgedNegatives()).isEqualTo(5);
    assertThat(summary.documents()).isEqualTo(13);
    BeirDataset nano = BeirDatasetReader.read(tmp.resolve("a"));
    assertThat(nano.corpus()).hasSize(13);
    for (String query : nano.evaluatedQueryIds()) {
      assertThat(nano.qrels().relevantCount(query)).isEqualTo(2);
    }

    // With room for 3 documents only one query's two positives fit: the others are not kept
    // rather than kept without their positives.
    var tight =
        new NanoSetBuilder()
            .build(source, settings(4, 3, 9, HardNegatives.AUTO, 50), List.of(), tmp.resolve("b"));
    assertThat(tight.queries()).isEqualTo(1);
    assertThat(tight.positives()).isEqualTo(2);
    assertThat(tight.documents()).isEqualTo(3);
  }

  @Test
  void autoMinesOnlyWhenTheKeptQueriesHaveNoJudgedNegatives() throws Exception {
    BeirDataset unjudged = threeQueries();
    FixedMiner bm25 = new FixedMiner("bm25", Map.of("q0", List.of("n0")));
    FixedMiner dense = new FixedMiner("dense:fake", Map.of());
    var mined =
        new NanoSetBuilder()
            .build(
                unjudged,
                settings(200, 4, 1, HardNegatives.AUTO, 50),
                List.of(bm25, dense),
                tmp.resolve("mined"));
    assertThat(mined.hardNegativeSource()).isEqualTo(HardNegatives.MINED);
    assertThat(mined.minedNegatives()).isEqualTo(1);

    BeirDataset judged =
        new NanoBeir()
            .query("q0", "question")
            .document("p0", "answer")
            .document("n0", "wrong answer")
            .judge("q0", "p0", 1)
            .judge("q0", "n0", 0)
            .write(tmp.resolve("judged"));
    var fromQrels =
        new NanoSetBuilder()
            .build(
                judged,
                settings(200, 10, 1, HardNegatives.AUTO, 50),
                List.of(FixedMiner.unused("bm25"), FixedMiner.unused("dense:fake")),
                tmp.resolve("from-qrels"));
    assertThat(fromQrels.hardNegativeSource()).isEqualTo(HardNegatives.JUDGED);
    assertThat(fromQrels.judgedNegatives()).isEqualTo(1);
  }

  @Test
  void bothTakesAQuerysJudgedNegativesBeforeItsMinedOnes() throws Exception {
    BeirDataset judged =
        new NanoBeir()
            .query("q0", "question")
            .document("p0", "answer")
            .document("n0", "judged wrong answer")
            .document("m0", "mined passage")
            .document("m1", "another mined passage")
            .judge("q0", "p0", 1)
            .judge("q0", "n0", 0)
            .write(tmp.resolve("judged"));
    FixedMiner bm25 = new FixedMiner("bm25", Map.of("q0", List.of("m1", "n0", "p0", "m0")));
    FixedMiner dense = new FixedMiner("dense:fake", Map.of());

    var summary =
        new NanoSetBuilder()
            .build(
                judged,
                settings(200, 3, 1, HardNegatives.BOTH, 50),
                List.of(bm25, dense),
                tmp.resolve("both"));

    assertThat(ids(tmp.resolve("both"))).containsExactly("p0", "n0", "m1");
    assertThat(summary.judgedNegatives()).isEqualTo(1);
    assertThat(summary.minedNegatives()).isEqualTo(1);
  }

  @Test
  void fillerIsSampledWithTheSeedNotTakenInCorpusOrder() throws Exception {
    NanoBeir beir =
        new NanoBeir().query("q0", "question").document("p0", "answer").judge("q0", "p0", 1);
    for (int d = 0; d < 300; d++) {
      beir.document(String.format("d%03d", d), "passage " + d);
    }
    BeirDataset source = beir.write(tmp.resolve("filler"));
    NanoSetBuilder builder = new NanoSetBuilder();

    var summary =
        builder.build(
            source, settings(200, 51, 7, HardNegatives.JUDGED, 50), List.of(), tmp.resolve("a"));
    builder.build(
        source, settings(200, 51, 7, HardNegatives.JUDGED, 50), List.of(), tmp.resolve("b"));
    builder.build(
        source, settings(200, 51, 8, HardNegatives.JUDGED, 50), List.of(), tmp.resolve("c"));

    assertThat(summary.filler()).isEqualTo(50);
    for (String file : List.of("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")) {
      assertThat(Files.readAllBytes(tmp.resolve("b").resolve(file)))
          .as(file)
          .isEqualTo(Files.readAllBytes(tmp.resolve("a").resolve(file)));
    }
    List<String> seven = ids(tmp.resolve("a")).subList(1, 51);
    List<String> eight = ids(tmp.resolve("c")).subList(1, 51);
    assertThat(eight).isNotEqualTo(seven);
    assertThat(Set.copyOf(eight)).isNotEqualTo(Set.copyOf(seven));
    List<String> corpusOrder = new ArrayList<>();
    for (int d = 0; d < 50; d++) {
      corpusOrder.add(String.format("d%03d", d));
    }
    assertThat(seven).isNotEqualTo(corpusOrder);
  }

  @Test
  void aDocumentWhoseNormalisedTextIsAlreadyKeptNeverEnters() throws Exception {
    BeirDataset source =
        new NanoBeir()
            .query("q0", "How to bake an apple pie")
            .query("q1", "  how to BAKE an apple   pie ")
            .document("p0", "Apple pie recipe")
            .document("copy-of-p0", "  apple   PIE\trecipe ")
            .document("n0", "A pastry")
            .document("f1", "Same text")
            .document("f2", "same  TEXT")
            .judge("q0", "p0", 1)
            .judge("q1", "p0", 1)
            .write(tmp.resolve("dups"));
    FixedMiner bm25 =
        new FixedMiner(
            "bm25",
            Map.of(
                "q0", List.of("copy-of-p0", "p0", "n0"),
                "q1", List.of("copy-of-p0", "p0", "n0")));
    FixedMiner dense = new FixedMiner("dense:fake", Map.of());

    var summary =
        new NanoSetBuilder()
            .build(
                source,
                settings(200, 100, 3, HardNegatives.MINED, 50),
                List.of(bm25, dense),
                tmp.resolve("nano"));

    BeirDataset nano = BeirDatasetReader.read(tmp.resolve("nano"));
    // The two queries are one after normalisation.
    assertThat(nano.queries()).hasSize(1);
    assertThat(ids(tmp.resolve("nano"))).doesNotContain("copy-of-p0").contains("n0");
    assertThat(ids(tmp.resolve("nano")).stream().filter(id -> id.startsWith("f")).count())
        .isEqualTo(1);
    assertThat(summary.duplicatesDropped()).isEqualTo(2);
    assertThat(summary.documents()).isEqualTo(nano.corpus().size());
  }

  @Test
  void nanoJsonRecordsSourceSeedCapsMinersAndCounts() throws Exception {
    BeirDataset source = threeQueries();
    FixedMiner bm25 =
        new FixedMiner("bm25", Map.of("q0", List.of("n0", "n1"), "q1", List.of("n2")));
    FixedMiner dense = new FixedMiner("dense:fake", Map.of("q2", List.of("n3")));
    Path out = tmp.resolve("nano");

    var summary =
        new NanoSetBuilder()
            .build(
                source, settings(200, 10, 13, HardNegatives.AUTO, 30), List.of(bm25, dense), out);

    JsonNode record = new ObjectMapper().readTree(out.resolve("nano.json").toFile());
    assertThat(record.path("format_version").asInt()).isEqualTo(2);
    assertThat(record.path("source_dataset").asText()).isEqualTo("three");
    assertThat(record.path("source_path").asText())
        .isEqualTo(tmp.resolve("three").toAbsolutePath().normalize().toString());
    assertThat(record.path("source_sha256").asText())
        .isEqualTo(DatasetFingerprint.of(tmp.resolve("three")));
    assertThat(record.path("seed").asLong()).isEqualTo(13);
    assertThat(record.path("max_queries").asInt()).isEqualTo(200);
    assertThat(record.path("max_documents").asInt()).isEqualTo(10);
    assertThat(record.path("hard_negatives_requested").asText()).isEqualTo("auto");
    assertThat(record.path("hard_negatives_source").asText()).isEqualTo("mined");
    assertThat(record.path("mining").path("depth").asInt()).isEqualTo(30);
    JsonNode miners = record.path("mining").path("miners");
    assertThat(miners).hasSize(2);
    assertThat(miners.get(0).path("name").asText()).isEqualTo("bm25");
    assertThat(miners.get(1).path("name").asText()).isEqualTo("dense:fake");
    assertThat(miners.get(1).path("model_revision").asText()).isEqualTo("rev-1");
    assertThat(record.path("mining").path("pooling").asText()).contains("best rank");
    assertThat(record.path("queries").asInt()).isEqualTo(3);
    assertThat(record.path("positives").asInt()).isEqualTo(3);
    assertThat(record.path("mined_hard_negatives").asInt()).isEqualTo(4);
    assertThat(record.path("judged_hard_negatives").asInt()).isZero();
    assertThat(record.path("filler").asInt()).isEqualTo(3);
    assertThat(record.path("documents").asInt()).isEqualTo(10).isEqualTo(summary.documents());
    assertThat(record.path("duplicates_dropped").asInt()).isZero();
  }
}
