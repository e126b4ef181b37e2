package dev.tenbin.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cross-encoder heads and precision on small ONNX rerankers the tests build. */
class CrossEncoderTest {
  private static final int V = TinyModels.VOCABULARY;
  private static final int H = TinyModels.HIDDEN;
  @TempDir Path tmp;
  RerankCore core;

  private void model(String id, byte[] onnx, String card) throws Exception {
    model(id, onnx, card, TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
  }

  private void model(String id, byte[] onnx, String card, byte[] tokenizer) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("models").resolve(id));
    Files.write(dir.resolve("model.onnx"), onnx);
    Files.write(dir.resolve("tokenizer.json"), tokenizer);
    Files.writeString(dir.resolve("card.json"), card);
  }

  /**
   * The word-level tokenizer with a decoder-style template: [CLS] before a text, no [SEP] after it.
   */
  private static byte[] tokenizerWithoutTrailingSep() {
    String json =
        new String(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), StandardCharsets.UTF_8);
    String withSep =
        "\"single\":[{\"SpecialToken\":{\"id\":\"[CLS]\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
            + "{\"SpecialToken\":{\"id\":\"[SEP]\",\"type_id\":0}}]";
    assertThat(json).contains(withSep);
    return json.replace(
            withSep,
            "\"single\":[{\"SpecialToken\":{\"id\":\"[CLS]\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]")
        .getBytes(StandardCharsets.UTF_8);
  }

  @BeforeEach
  void start() throws Exception {
    float[] table = TinyOnnxModels.table(V, H, 1);
    float[] one = TinyOnnxModels.table(H, 1, 2);
    float[] two = TinyOnnxModels.table(H, 2, 3);
    // Large weights push sigmoids towards 1, where FP16 has few representable values.
    float[] steep = new float[H];
    for (int i = 0; i < H; i++) {
      steep[i] = 24 * TinyOnnxModels.table(H, 1, 4)[i];
    }
    model(
        "tiny-sigmoid",
        TinyOnnxModels.pairClassifier(table, one, V, H, 1, false),
        "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\"}");
    model(
        "tiny-softmax",
        TinyOnnxModels.pairClassifier(table, two, V, H, 2, false),
        "{\"id\":\"tiny-softmax\",\"head\":\"SOFTMAX2\"}");
    model(
        "tiny-fp16",
        TinyOnnxModels.pairClassifier(table, steep, V, H, 1, true),
        "{\"id\":\"tiny-fp16\",\"head\":\"SIGMOID\"}");
    model(
        "tiny-yesno",
        TinyOnnxModels.mlmEncoder(table, TinyOnnxModels.table(H, V, 5), V, H),
        "{\"id\":\"tiny-yesno\",\"head\":\"YES_NO\",\"prompt_template\":\"query {query} document {document}\","
            + "\"yes_token\":\"apple\",\"no_token\":\"banana\"}",
        tokenizerWithoutTrailingSep());
    model(
        "tiny-llm",
        TinyOnnxModels.languageModelHead(
            table, TinyOnnxModels.table(H, LLM_VOCABULARY, 6), V, H, LLM_VOCABULARY, false, true),
        "{\"id\":\"tiny-llm\",\"head\":\"YES_NO\",\"prompt_template\":\"query {query} document {document}\","
            + "\"yes_token\":\"apple\",\"no_token\":\"banana\"}",
        tokenizerWithoutTrailingSep());
    RerankerRegistry registry =
        new RerankerRegistry(
            tmp.resolve("models"),
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            64);
    core =
        new RerankCore(
            registry,
            () -> {
              throw new IllegalStateException("no encoder in this test");
            },
            100);
  }

  @AfterEach
  void stop() {
    core.close();
  }

  private static List<RerankCore.Candidate> candidates(String... texts) {
    List<RerankCore.Candidate> out = new ArrayList<>();
    for (int i = 0; i < texts.length; i++) {
      out.add(new RerankCore.Candidate("d" + i, texts[i]));
    }
    return out;
  }

  /** mean over [CLS] q.. [SEP] d.. [SEP] of table rows, dotted with the projection column. */
  private static double logit(
      float[] table, float[] projection, int outputs, int column, long[] ids) {
    double sum = 0;
    for (int d = 0; d < H; d++) {
      double mean = 0;
      for (long id : ids) {
        mean += table[(int) id * H + d];
      }
      sum += mean / ids.length * projection[d * outputs + column];
    }
    return sum;
  }

  @Test
  void sigmoidHeadScoresPairsWithTokenTypes() {
    // One candidate per call: the tiny model averages over padding too, so batch mates would shift
    // it.
    var reranked =
        core.rerank(
            "tiny-sigmoid",
            "apple",
            candidates("banana"),
            ScorePrecision.FP32,
            0,
            Cancellation.NEVER);
    float[] table = TinyOnnxModels.table(V, H, 1);
    float[] one = TinyOnnxModels.table(H, 1, 2);
    double bananaScore = 1 / (1 + Math.exp(-logit(table, one, 1, 0, new long[] {2, 4, 3, 5, 3})));
    assertThat(reranked.documents())
        .anySatisfy(
            d -> {
              assertThat(d.docId()).isEqualTo("d0");
              assertThat((double) d.score()).isCloseTo(bananaScore, within(1e-5));
            });
    var two =
        core.rerank(
            "tiny-sigmoid",
            "apple",
            candidates("banana", "cherry"),
            ScorePrecision.FP32,
            0,
            Cancellation.NEVER);
    assertThat(two.documents().get(0).score())
        .isGreaterThanOrEqualTo(two.documents().get(1).score());
  }

  @Test
  void softmaxHeadIsTheProbabilityOfTheSecondLogit() {
    var reranked =
        core.rerank(
            "tiny-softmax", "apple", candidates("fig"), ScorePrecision.FP32, 0, Cancellation.NEVER);
    float[] table = TinyOnnxModels.table(V, H, 1);
    float[] two = TinyOnnxModels.table(H, 2, 3);
    long[] ids = {2, 4, 3, 9, 3};
    double a = logit(table, two, 2, 0, ids);
    double b = logit(table, two, 2, 1, ids);
    assertThat((double) reranked.documents().getFirst().score())
        .isCloseTo(Math.exp(b) / (Math.exp(a) + Math.exp(b)), within(1e-5));
  }

  @Test
  void yesNoHeadReadsEachPromptsLastPositionsYesAndNoLogits() {
    // Prompts of different lengths ("query cherry document date" is 5 tokens with [CLS], "... elder
    // fig" 6), scored in one padded batch: each score comes from its own last token.
    var reranked =
        core.rerank(
            "tiny-yesno",
            "cherry",
            candidates("date", "elder fig"),
            ScorePrecision.FP32,
            0,
            Cancellation.NEVER);
    float[] table = TinyOnnxModels.table(V, H, 1);
    float[] lm = TinyOnnxModels.table(H, V, 5);
    int yesId = 4 + TinyModels.WORDS.indexOf("apple");
    int noId = 4 + TinyModels.WORDS.indexOf("banana");
    Map<String, Double> expected = new LinkedHashMap<>();
    expected.put("d0", yesNo(table, lm, 4 + TinyModels.WORDS.indexOf("date"), yesId, noId));
    expected.put("d1", yesNo(table, lm, 4 + TinyModels.WORDS.indexOf("fig"), yesId, noId));
    assertThat(Math.abs(expected.get("d0") - expected.get("d1")))
        .as("the candidates score differently")
        .isGreaterThan(1e-3);
    List<String> order =
        expected.entrySet().stream()
            .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
            .map(Map.Entry::getKey)
            .toList();
    assertThat(reranked.documents())
        .extracting(RerankCore.Scored::docId)
        .containsExactlyElementsOf(order);
    for (RerankCore.Scored doc : reranked.documents()) {
      assertThat((double) doc.score())
          .as(doc.docId())
          .isCloseTo(expected.get(doc.docId()), within(1e-5));
    }
  }

  /** sigmoid(yes logit - no logit) at a position holding {@code token}. */
  private static double yesNo(float[] table, float[] lm, int token, int yesId, int noId) {
    return yesNo(table, lm, V, token, yesId, noId);
  }

  /** The same for a language-model head {@code width} logits wide. */
  private static double yesNo(
      float[] table, float[] lm, int width, int token, int yesId, int noId) {
    double yes = 0;
    double no = 0;
    for (int d = 0; d < H; d++) {
      yes += table[token * H + d] * lm[d * width + yesId];
      no += table[token * H + d] * lm[d * width + noId];
    }
    return 1 / (1 + Math.exp(no - yes));
  }

  /** Logits of "tiny-llm": a vocabulary-wide output far wider than its tokenizer. */
  private static final int LLM_VOCABULARY = 100_000;

  @Test
  void anLlmRerankerKeepsOnlyTheLastPositionsYesAndNoLogitsOfAVocabularyWideOutput() {
    // 24 prompts of 5 to 7 tokens: their logits, 100,000 per token, are at least 48 MB in FP32.
    List<String> words = TinyModels.WORDS;
    String[] texts = new String[24];
    for (int i = 0; i < texts.length; i++) {
      texts[i] =
          String.join(
              " ",
              words.subList(
                  i % words.size(), Math.min(words.size(), i % words.size() + 1 + i % 3)));
    }
    long fp32Logits = 24L * 5 * LLM_VOCABULARY * Float.BYTES;
    core.rerank(
        "tiny-llm", "cherry", candidates(texts), ScorePrecision.FP32, 0, Cancellation.NEVER);
    var threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getThreadAllocatedBytes(Thread.currentThread().threadId());
    var reranked =
        core.rerank(
            "tiny-llm", "cherry", candidates(texts), ScorePrecision.FP32, 0, Cancellation.NEVER);
    long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().threadId()) - before;
    assertThat(allocated)
        .as("heap bytes allocated to score, against %d bytes of FP32 logits", fp32Logits)
        .isLessThan(fp32Logits / 20);

    float[] table = TinyOnnxModels.table(V, H, 1);
    float[] lm = TinyOnnxModels.table(H, LLM_VOCABULARY, 6);
    int yesId = 4 + words.indexOf("apple");
    int noId = 4 + words.indexOf("banana");
    assertThat(reranked.documents()).hasSize(texts.length);
    for (RerankCore.Scored doc : reranked.documents()) {
      String text = texts[Integer.parseInt(doc.docId().substring(1))];
      String[] tokens = text.split(" ");
      int last = 4 + words.indexOf(tokens[tokens.length - 1]);
      assertThat((double) doc.score())
          .as(doc.docId())
          .isCloseTo(yesNo(table, lm, LLM_VOCABULARY, last, yesId, noId), within(1e-5));
    }
  }

  @Test
  void fp16ScoringInTheModelsDtypeTiesWhereHighPrecisionScoringDoesNot() {
    // 56 documents with distinct bags of three words and equal lengths: no two tie in FP32.
    List<String> words = TinyModels.WORDS;
    List<String> list = new ArrayList<>();
    for (int a = 0; a < words.size(); a++) {
      for (int b = a + 1; b < words.size(); b++) {
        for (int c = b + 1; c < words.size(); c++) {
          list.add(words.get(a) + " " + words.get(b) + " " + words.get(c));
        }
      }
    }
    String[] texts = list.toArray(new String[0]);
    var fp32 =
        core.rerank(
            "tiny-fp16",
            "apple grape",
            candidates(texts),
            ScorePrecision.FP32,
            0,
            Cancellation.NEVER);
    var half =
        core.rerank(
            "tiny-fp16",
            "apple grape",
            candidates(texts),
            ScorePrecision.MODEL_DTYPE,
            0,
            Cancellation.NEVER);
    assertThat(tiedPairs(fp32.documents())).isZero();
    assertThat(tiedPairs(half.documents())).isPositive();
    assertThat(core.crossEncoders().info("tiny-fp16").dtype()).isEqualTo("FLOAT16");
  }

  static int tiedPairs(List<RerankCore.Scored> docs) {
    int ties = 0;
    for (int i = 0; i < docs.size(); i++) {
      for (int j = i + 1; j < docs.size(); j++) {
        if (docs.get(i).score() == docs.get(j).score()) {
          ties++;
        }
      }
    }
    return ties;
  }

  @Test
  void badRequestsNameTheirField() {
    assertThatThrownBy(
            () ->
                core.rerank(
                    "tiny-sigmoid",
                    " ",
                    candidates("a"),
                    ScorePrecision.FP32,
                    0,
                    Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("query");
    assertThatThrownBy(
            () ->
                core.rerank(
                    "tiny-sigmoid",
                    "q",
                    List.of(new RerankCore.Candidate("x", "a"), new RerankCore.Candidate("x", "b")),
                    ScorePrecision.FP32,
                    0,
                    Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("candidates[1].doc_id");
    String[] many = new String[101];
    java.util.Arrays.fill(many, "apple");
    assertThatThrownBy(
            () ->
                core.rerank(
                    "tiny-sigmoid",
                    "q",
                    candidates(many),
                    ScorePrecision.FP32,
                    0,
                    Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("candidates");
    assertThatThrownBy(
            () ->
                core.rerank(
                    "missing", "q", candidates("a"), ScorePrecision.FP32, 0, Cancellation.NEVER))
        .isInstanceOf(NotFoundException.class);
  }
}
