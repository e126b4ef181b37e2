package dev.tenbin.model.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.CancelledException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The tokenizer adds [CLS]/[SEP], truncates at the max length and says when it did; long texts read
 * from a prefix give the same tokens as whole; closing and cancelling are safe.
 */
class TextTokenizerTest {
  @Test
  void loadingATokenizerOptsOutOfDjlUsageTrackingAndOpensNoConnection() throws Exception {
    java.util.List<java.net.URI> asked =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    java.net.ProxySelector previous = java.net.ProxySelector.getDefault();
    java.net.ProxySelector.setDefault(
        new java.net.ProxySelector() {
          @Override
          public java.util.List<java.net.Proxy> select(java.net.URI uri) {
            asked.add(uri);
            return java.util.List.of(java.net.Proxy.NO_PROXY);
          }

          @Override
          public void connectFailed(
              java.net.URI uri, java.net.SocketAddress address, java.io.IOException e) {}
        });
    try (TextTokenizer tokenizer =
        new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8)) {
      assertThat(System.getProperty(dev.tenbin.model.tokenizer.DjlSettings.TRACKING_SWITCH))
          .isEqualTo("true");
      // What DJL runs when a tokenizer is created: with the opt-out it returns before any request.
      ai.djl.util.Ec2Utils.callHome("Huggingface");
      assertThat(tokenizer.encode(List.of("apple")).ids()[0]).isNotEmpty();
    } finally {
      java.net.ProxySelector.setDefault(previous);
    }
    assertThat(asked).as("URLs DJL tried to reach").isEmpty();
  }

  @Test
  void djlLoadsTheCpuTokenizerLibraryFromItsJarEvenWhereCudaIsInstalled() {
    try (TextTokenizer tokenizer =
        new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8)) {
      // DJL's own reading of the switch: "cpu" keeps it from picking a CUDA build that only
      // publish.djl.ai has (what an offline GPU node did before), unless the operator chose.
      String chosen = System.getenv(dev.tenbin.model.tokenizer.DjlSettings.FLAVOR_SWITCH);
      assertThat(
              ai.djl.util.Utils.getEnvOrSystemProperty(
                  dev.tenbin.model.tokenizer.DjlSettings.FLAVOR_SWITCH))
          .isEqualTo(chosen == null ? "cpu" : chosen);
      assertThat(tokenizer.encode(List.of("apple")).ids()[0]).isNotEmpty();
    }
  }

  @Test
  void specialTokensAreAddedAndTruncationIsReportedOnlyWhenTokensWereCut() {
    try (TextTokenizer tokenizer =
        new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8)) {
      String fits = String.join(" ", Collections.nCopies(6, "apple"));
      String over = String.join(" ", Collections.nCopies(7, "apple"));
      TokenizedBatch batch = tokenizer.encode(List.of("Banana", fits, over));
      assertThat(batch.ids()[0]).containsExactly(2, 5, 3);
      assertThat(batch.ids()[1]).hasSize(8).startsWith(2).endsWith(3);
      assertThat(batch.ids()[2]).hasSize(8).startsWith(2).endsWith(3);
      assertThat(batch.truncated()).containsExactly(false, false, true);
      assertThat(tokenizer.idsWithoutSpecialTokens("apple banana")).containsExactly(4, 5);
      assertThat(tokenizer.hasFastPath()).isFalse();
    }
  }

  private static String words(Random random, int chars, String... vocabulary) {
    StringBuilder text = new StringBuilder();
    while (text.length() < chars) {
      text.append(vocabulary[random.nextInt(vocabulary.length)]);
    }
    return text.toString();
  }

  @Test
  void longTextsReadFromAPrefixGiveExactlyTheWholeTextsTokens() {
    byte[] json = tokenizerJson("bge-small-en-v1.5");
    assertThat(TextTokenizer.splitsAtWhitespace(json)).isTrue();
    Random random = new Random(7);
    List<String> texts = new ArrayList<>();
    texts.add(
        words(random, 100_000, "retrieval ", "dense, ", "Token-budget ", "naïve ", "東京 ", "x"));
    // Very long words (each one [UNK] token) and whitespace runs: the prefix does not overflow, so
    // the whole text is read.
    texts.add(words(random, 60_000, "a".repeat(150) + " ", "          ", "b".repeat(400) + "\n"));
    texts.add(words(random, 9_000, "word ") + "end");
    texts.add(words(random, 8_200, "supercalifragilistic ", "\t\t\t", "ok "));
    texts.add("x".repeat(20_000) + " tail words here");
    try (TextTokenizer tokenizer = new TextTokenizer(json, 512)) {
      TokenizedBatch batch = tokenizer.encode(texts);
      for (int i = 0; i < texts.size(); i++) {
        assertThat(batch.ids()[i])
            .as("text %d", i)
            .containsExactly(tokenizer.encodeWhole(texts.get(i)));
        assertThat(batch.truncated()[i]).as("text %d", i).isEqualTo(batch.ids()[i].length == 512);
      }
    }
  }

  @Test
  void tokenizingStopsBetweenTextsOnceTheCallerHasGone() {
    try (TextTokenizer tokenizer =
        new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8)) {
      AtomicInteger asked = new AtomicInteger();
      List<String> texts = Collections.nCopies(1000, "apple banana");
      // The caller goes after the third text.
      assertThatThrownBy(() -> tokenizer.encode(texts, () -> asked.incrementAndGet() > 3))
          .isInstanceOf(CancelledException.class);
      assertThat(asked).hasValue(4);
    }
  }

  @Test
  void aClosedTokenizerRefusesCallsInsteadOfTouchingFreedMemory() {
    TextTokenizer tokenizer =
        new TextTokenizer(TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS), 8);
    tokenizer.close();
    assertThatThrownBy(() -> tokenizer.encode(List.of("apple")))
        .isInstanceOf(UnavailableException.class);
    assertThatThrownBy(() -> tokenizer.tokens("apple")).isInstanceOf(UnavailableException.class);
    assertThatThrownBy(() -> tokenizer.nativeIdsWithoutSpecialTokens("apple"))
        .isInstanceOf(UnavailableException.class);
    tokenizer.close();
  }

  @Test
  void closingWhileOtherThreadsTokenizeEndsEveryCallCleanly() throws Exception {
    byte[] json = tokenizerJson("all-minilm-l6-v2");
    String text = words(new Random(3), 20_000, "token ", "budget ", "batching ");
    for (int round = 0; round < Integer.getInteger("tenbin.stress", 2); round++) {
      TextTokenizer tokenizer = new TextTokenizer(json, 512);
      AtomicInteger ok = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (true) {
                        try {
                          tokenizer.encode(List.of(text, "short text"));
                          tokenizer.nativeIdsWithoutSpecialTokens("a query");
                          ok.incrementAndGet();
                        } catch (UnavailableException closed) {
                          refused.incrementAndGet();
                          return;
                        }
                      }
                    }));
      }
      Thread.sleep(20 + round % 7);
      tokenizer.close();
      for (Thread thread : threads) {
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
      }
      assertThat(refused).hasValue(3);
    }
  }

  /**
   * The {@code tokenizer.json} of a real model, from the langchain4j embedding jar on the test
   * class path (the same file the encoder's built-in model of that id uses).
   */
  private static byte[] tokenizerJson(String model) {
    try (java.io.InputStream in =
        TextTokenizerTest.class.getClassLoader().getResourceAsStream(model + "-tokenizer.json")) {
      if (in == null) {
        throw new IllegalStateException("no " + model + "-tokenizer.json on the test class path");
      }
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
