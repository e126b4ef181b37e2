package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class RunOrderTest {
  private static List<String> ids(List<ScoredDoc> docs) {
    return docs.stream().map(ScoredDoc::docId).toList();
  }

  @Test
  void trecEvalOrderSortsByScoreDescendingThenDocnoDescending() {
    List<ScoredDoc> run =
        List.of(
            new ScoredDoc("b", 1),
            new ScoredDoc("c", 2),
            new ScoredDoc("a", 1),
            new ScoredDoc("B", 1));
    // "b" > "a" > "B" in strcmp order (lowercase letters are above uppercase in ASCII).
    assertThat(ids(RunOrder.TREC_EVAL.apply(run))).containsExactly("c", "b", "a", "B");
  }

  @Test
  void docnosCompareByCodePointAsStrcmpComparesUtf8() {
    // U+1F600 is above U+FFFD as a code point (and in UTF-8 bytes) but below it as UTF-16 units.
    String emoji = "d\uD83D\uDE00";
    String replacement = "d\uFFFD";
    assertThat(emoji.compareTo(replacement)).isNegative();
    List<ScoredDoc> run = List.of(new ScoredDoc(replacement, 1), new ScoredDoc(emoji, 1));
    assertThat(ids(RunOrder.TREC_EVAL.apply(run))).containsExactly(emoji, replacement);
  }

  @Property
  void docnoOrderIsTheByteOrderOfUtf8(@ForAll("docnos") String a, @ForAll("docnos") String b) {
    int bytes =
        java.util.Arrays.compareUnsigned(
            a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(Integer.signum(RunOrder.compareAsStrcmp(a, b))).isEqualTo(Integer.signum(bytes));
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<String> docnos() {
    return net.jqwik.api.Arbitraries.of(
            "d", "1", "\u00E9", "\uFFFD", "\uE000", "\uD83D\uDE00", "\uD83D\uDE01")
        .list()
        .ofMaxSize(5)
        .map(parts -> String.join("", parts));
  }

  @Test
  void positiveAndNegativeZeroScoresTie() {
    List<ScoredDoc> run = List.of(new ScoredDoc("a", -0.0), new ScoredDoc("b", 0.0));
    assertThat(ids(RunOrder.TREC_EVAL.apply(run))).containsExactly("b", "a");
    run = List.of(new ScoredDoc("b", -0.0), new ScoredDoc("a", 0.0));
    assertThat(ids(RunOrder.TREC_EVAL.apply(run))).containsExactly("b", "a");
  }

  @Test
  void bothOrdersKeepTheFirstOccurrenceOfARepeatedDocument() {
    List<ScoredDoc> run =
        List.of(new ScoredDoc("a", 1), new ScoredDoc("x", 2), new ScoredDoc("a", 3));
    assertThat(RunOrder.TREC_EVAL.apply(run))
        .containsExactly(new ScoredDoc("x", 2), new ScoredDoc("a", 1));
    assertThat(RunOrder.AS_GIVEN.apply(run))
        .containsExactly(new ScoredDoc("a", 1), new ScoredDoc("x", 2));
  }

  @Property(tries = 300)
  void eachIdKeepsItsFirstDocumentAsASetOfSeenIdsWould(
      @ForAll("rankingsWithRepeats") List<ScoredDoc> ranking) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    List<ScoredDoc> expected = ranking.stream().filter(doc -> seen.add(doc.docId())).toList();
    assertThat(RunOrder.AS_GIVEN.apply(ranking)).containsExactlyElementsOf(expected);
    assertThat(RunOrder.repeatedDocuments(ranking)).isEqualTo(ranking.size() - expected.size());
  }

  /** Ids from a small pool, with pairs of equal hash codes ("Aa" and "BB"), repeated often. */
  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<List<ScoredDoc>> rankingsWithRepeats() {
    net.jqwik.api.Arbitrary<String> ids =
        net.jqwik.api.Arbitraries.oneOf(
            net.jqwik.api.Arbitraries.of("Aa", "BB", "AaAa", "BBBB", "AaBB", "BBAa", "d"),
            net.jqwik.api.Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(3));
    net.jqwik.api.Arbitrary<ScoredDoc> docs =
        net.jqwik.api.Combinators.combine(ids, net.jqwik.api.Arbitraries.integers().between(0, 3))
            .as(ScoredDoc::new);
    return docs.list().ofMaxSize(300);
  }

  @Test
  void asGivenKeepsTheOrderEvenWhenScoresDisagree() {
    List<ScoredDoc> run = List.of(new ScoredDoc("a", 1), new ScoredDoc("b", 2));
    assertThat(ids(RunOrder.AS_GIVEN.apply(run))).containsExactly("a", "b");
  }
}
