package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.proto.index.v1.Quantization;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** MaxP / FirstP: variant names, windows in model tokens, and the fold back to documents. */
class ChunkingTest {
  @Test
  void aChunkingPrefixesAnyEfficiencyVariant() {
    DenseVariant maxp = DenseVariant.parse("maxp256s128_int8_rescore");
    assertThat(maxp.name()).isEqualTo("maxp256s128_int8_rescore");
    assertThat(maxp.chunking()).isEqualTo(new Chunking(Chunking.Mode.MAXP, 256, 128));
    assertThat(maxp.quantization()).isEqualTo(Quantization.QUANTIZATION_INT8);
    assertThat(maxp.rescore()).isTrue();
    assertThat(DenseVariant.parse("maxp300").chunking().stride()).isEqualTo(300);
    assertThat(DenseVariant.parse("firstp128").chunking().mode()).isEqualTo(Chunking.Mode.FIRSTP);
    assertThat(DenseVariant.parse("int8").chunking()).isEqualTo(Chunking.TRUNCATE);
    assertThatThrownBy(() -> DenseVariant.parse("maxp10s20"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("stride within 1..window");
    assertThatThrownBy(() -> DenseVariant.parse("firstp10s5"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("firstpW takes no stride");
    assertThatThrownBy(() -> DenseVariant.parse("maxp0")).isInstanceOf(InvalidInputException.class);
  }

  @Test
  void windowsAreSubstringsOfTheTextCoveringItWithTheStride() {
    String text = "one two three four five six seven eight nine ten eleven";
    try (LengthTokenizer tokenizer = LengthTokenizer.open(LengthTokenizer.DEFAULT)) {
      List<String> windows =
          DocumentWindows.texts(text, new Chunking(Chunking.Mode.MAXP, 4, 2), tokenizer);
      assertThat(windows)
          .containsExactly(
              "one two three four",
              "three four five six",
              "five six seven eight",
              "seven eight nine ten",
              "nine ten eleven");
      assertThat(DocumentWindows.texts(text, new Chunking(Chunking.Mode.FIRSTP, 4, 4), tokenizer))
          .containsExactly("one two three four");
      assertThat(DocumentWindows.texts("short", new Chunking(Chunking.Mode.MAXP, 4, 2), tokenizer))
          .containsExactly("short");
    }
  }

  @Test
  void aDocumentScoresItsBestWindowAndTiesGoToTheSmallerId() {
    BeirDataset data =
        new BeirDataset(
            "t",
            Path.of("t"),
            dev.tenbin.scoring.beir.Corpus.of(
                List.of(
                    new CorpusDocument("b", "B", "alpha beta gamma delta epsilon zeta"),
                    new CorpusDocument("a", "", "eta theta"))),
            Map.of("q", "query"),
            Qrels.of(Map.of("q", Map.of("a", 1))),
            SpanQrels.none(),
            List.of("q"),
            List.of());
    try (LengthTokenizer tokenizer = LengthTokenizer.open(LengthTokenizer.DEFAULT)) {
      DocumentWindows windows =
          DocumentWindows.cut(data, new Chunking(Chunking.Mode.MAXP, 2, 2), tokenizer);
      assertThat(windows.windows())
          .extracting(CorpusDocument::text)
          .containsExactly("alpha beta", "gamma delta", "epsilon zeta", "eta theta");
      assertThat(windows.windows().get(1).title()).isEqualTo("B");
      assertThat(windows.depth(1)).isEqualTo(3);
      RetrievalResult folded =
          windows.fold(
              new RetrievalResult(
                  Map.of(
                      "q",
                      List.of(
                          new ScoredDoc("w1", 0.9),
                          new ScoredDoc("w3", 0.9),
                          new ScoredDoc("w0", 0.8),
                          new ScoredDoc("w2", 0.1))),
                  1,
                  1,
                  4),
              10);
      assertThat(folded.rankings().get("q"))
          .containsExactly(new ScoredDoc("a", 0.9), new ScoredDoc("b", 0.9));
      // 4 windows kept for 2 documents: what a document costs counts b's three and a's one
      assertThat(folded.diagnostics().vectorsPerDocument()).isEqualTo(2.0);
      assertThat(folded.diagnostics().asMap()).containsEntry("vectors_per_document", 2.0);
    }
  }
}
