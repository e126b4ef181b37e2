package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.Hit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Bm25Index#score} scores only the given documents, exactly as a whole-index search. */
class Bm25RescoringTest {
  private static final String[] WORDS = {
    "apple", "banana", "cherry", "date", "elder", "fig", "grape", "honey", "iris", "juniper", "kiwi",
    "lemon", "mango", "nectar", "olive", "peach", "quince", "rasp", "sloe", "tangerine"
  };

  @TempDir Path dir;

  private static String words(Random random, int count) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < count; i++) {
      text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
    }
    return text.toString();
  }

  /** Three commits of 70 documents each, so the index has several segments. */
  private Bm25Index threeSegmentIndex(Random random) {
    Bm25Index index =
        Bm25Index.open(dir, LanguageAnalyzers.forLanguage("en"), new Bm25Parameters(0.9f, 0.4f));
    int id = 0;
    for (int batch = 0; batch < 3; batch++) {
      List<LexicalDocument> docs = new ArrayList<>();
      for (int i = 0; i < 70; i++) {
        docs.add(
            new LexicalDocument(
                "d" + id++, words(random, random.nextInt(3)), words(random, 1 + random.nextInt(25))));
      }
      index.add(docs);
      index.commit();
    }
    return index;
  }

  @Test
  void scoresOfGivenDocumentsEqualThoseOfAWholeIndexSearchBitForBit() {
    Random random = new Random(16);
    try (Bm25Index index = threeSegmentIndex(random)) {
      List<String> ids = index.idsInOrder();
      int nonMatching = 0;
      for (int q = 0; q < 200; q++) {
        String query = words(random, 1 + random.nextInt(6)) + (q % 7 == 0 ? " unknownword" : "");
        Map<String, Float> wholeIndex = new HashMap<>();
        for (Hit hit : index.search(query, index.size(), Cancellation.NEVER)) {
          wholeIndex.put(hit.docId(), hit.score());
        }
        // Unsorted, with repeats, across all segments.
        int[] ordinals = new int[1 + random.nextInt(40)];
        for (int i = 0; i < ordinals.length; i++) {
          ordinals[i] = random.nextInt(index.size());
        }
        float[] scores = index.score(query, ordinals, Cancellation.NEVER);
        for (int i = 0; i < ordinals.length; i++) {
          Float expected = wholeIndex.get(ids.get(ordinals[i]));
          if (expected == null) {
            nonMatching++;
          }
          assertThat(Float.floatToIntBits(scores[i]))
              .as("query '%s', ordinal %d", query, ordinals[i])
              .isEqualTo(Float.floatToIntBits(expected == null ? 0f : expected));
        }
      }
      assertThat(nonMatching).as("documents matching no query term were scored too").isPositive();
    }
  }

  @Test
  void aQueryWithoutTermsOrNoOrdinalsScoresZeros() {
    try (Bm25Index index = threeSegmentIndex(new Random(1))) {
      assertThat(index.score("the of and", new int[] {0, 5}, Cancellation.NEVER))
          .containsExactly(0f, 0f);
      assertThat(index.score("apple", new int[0], Cancellation.NEVER)).isEmpty();
    }
  }

  @Test
  void anOrdinalOutsideTheIndexIsRefused() {
    try (Bm25Index index = threeSegmentIndex(new Random(2))) {
      assertThatThrownBy(() -> index.score("apple", new int[] {210}, Cancellation.NEVER))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("ordinal 210");
    }
  }
}
