package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Document ids by ordinal and ordinals by id, compact, as a list and a map would answer. */
class DocumentIdsTest {
  private static String randomId(SplittableRandom random) {
    int length = 1 + random.nextInt(12);
    StringBuilder id = new StringBuilder();
    for (int i = 0; i < length; i++) {
      // ASCII, accented and CJK characters: ids are compared as UTF-8 bytes.
      int kind = random.nextInt(10);
      id.append(kind < 7 ? (char) ('a' + random.nextInt(26)) : kind < 9 ? 'é' : '語');
    }
    return id.toString();
  }

  @Test
  void answersAsAListAndAMapOfTheSameIdsWould() {
    SplittableRandom random = new SplittableRandom(7);
    DocumentIds ids = new DocumentIds();
    List<String> list = new ArrayList<>();
    Map<String, Integer> map = new HashMap<>();
    while (list.size() < 20_000) {
      String id = randomId(random) + list.size() % 7;
      if (map.putIfAbsent(id, list.size()) == null) {
        list.add(id);
        ids.add(id);
      }
    }
    assertThat(ids.size()).isEqualTo(list.size());
    for (int ordinal = 0; ordinal < list.size(); ordinal++) {
      assertThat(ids.id(ordinal)).isEqualTo(list.get(ordinal));
      assertThat(ids.ordinalOf(list.get(ordinal))).isEqualTo(ordinal);
    }
    assertThat(ids.ordinalOf("not-there")).isNull();
  }

  @Test
  void truncatingForgetsTheLaterIdsAndTheirOrdinals() {
    DocumentIds ids = new DocumentIds();
    for (int i = 0; i < 1_000; i++) {
      ids.add("d" + i);
    }
    ids.truncateTo(400);
    assertThat(ids.size()).isEqualTo(400);
    assertThat(ids.ordinalOf("d399")).isEqualTo(399);
    assertThat(ids.ordinalOf("d400")).isNull();
    ids.add("d400-again");
    assertThat(ids.ordinalOf("d400-again")).isEqualTo(400);
    ids.clear();
    assertThat(ids.isEmpty()).isTrue();
    assertThat(ids.ordinalOf("d1")).isNull();
  }

  @Test
  void idsOverManyPagesAndAnIdLongerThanAPageAnswerAsAListWould() {
    DocumentIds ids = new DocumentIds();
    List<String> list = new ArrayList<>();
    // 200,000 ids of 12 to 15 bytes: several pages of bytes and of starts.
    for (int i = 0; i < 200_000; i++) {
      String id = (i == 100_000 ? "x".repeat(DocumentIds.PAGE_BYTES + 10) : "document-") + i;
      list.add(id);
      ids.add(id);
    }
    assertThat(list.size()).isGreaterThan(3 * DocumentIds.STARTS_PER_PAGE);
    for (int ordinal = 0; ordinal < list.size(); ordinal += 997) {
      assertThat(ids.id(ordinal)).isEqualTo(list.get(ordinal));
      assertThat(ids.ordinalOf(list.get(ordinal))).isEqualTo(ordinal);
    }
    for (int ordinal : new int[] {99_999, 100_000, 100_001, 199_999}) {
      assertThat(ids.id(ordinal)).isEqualTo(list.get(ordinal));
      assertThat(ids.ordinalOf(list.get(ordinal))).isEqualTo(ordinal);
    }

    // Back to the middle of a page of starts and of bytes, before the long id: what was added
    // after is gone, and new ids take its place.
    ids.truncateTo(70_001);
    assertThat(ids.size()).isEqualTo(70_001);
    assertThat(ids.ordinalOf(list.get(70_000))).isEqualTo(70_000);
    assertThat(ids.ordinalOf(list.get(70_001))).isNull();
    assertThat(ids.ordinalOf(list.get(100_000))).isNull();
    for (int i = 70_001; i < 150_000; i++) {
      ids.add("again-" + i);
    }
    assertThat(ids.id(70_000)).isEqualTo(list.get(70_000));
    assertThat(ids.id(149_999)).isEqualTo("again-149999");
    assertThat(ids.ordinalOf("again-70001")).isEqualTo(70_001);
    assertThat(ids.ordinalOf(list.get(149_999))).isNull();
  }

  @Test
  void idOrderIsEachOrdinalsPositionInJavasStringOrder() {
    DocumentIds ids = new DocumentIds();
    List<String> list = List.of("d10", "d2", "a", "Z", "é", "d1");
    list.forEach(ids::add);
    List<String> sorted = new ArrayList<>(list);
    sorted.sort(null);
    int[] order = ids.idOrder();
    for (int ordinal = 0; ordinal < list.size(); ordinal++) {
      assertThat(sorted.get(order[ordinal])).isEqualTo(list.get(ordinal));
    }
  }
}
