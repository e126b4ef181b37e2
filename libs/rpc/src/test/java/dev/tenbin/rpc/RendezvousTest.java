package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Rendezvous placement: fixed, spread evenly, and moving only what a new node wins. */
class RendezvousTest {
  private static final List<String> THREE =
      List.of(
          "tenbin-index-0.tenbin-index-headless:50052",
          "tenbin-index-1.tenbin-index-headless:50052",
          "tenbin-index-2.tenbin-index-headless:50052");

  private static List<String> keys(int count) {
    return IntStream.range(0, count).mapToObj(i -> "eval-collection-" + i).toList();
  }

  private static List<String> pods(int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> "tenbin-index-" + i + ".tenbin-index-headless:50052")
        .toList();
  }

  @Test
  void theWeightIsTheFirstEightBytesOfSha256OfNodeZeroByteKey() {
    // printf 'a\0b' | sha256sum starts 59b271ae1bbcb1d3: pinned, so a change of hash (which
    // would move every collection to another pod) cannot pass unnoticed.
    assertThat(Long.toHexString(Rendezvous.weight("a", "b"))).isEqualTo("59b271ae1bbcb1d3");
    assertThat(Rendezvous.weight("a", "b")).isNotEqualTo(Rendezvous.weight("ab", ""));
  }

  @Test
  void placementIsDeterministicAndIndependentOfTheOrderNodesAreGivenIn() {
    Rendezvous placement = new Rendezvous(THREE);
    List<String> reversed = new ArrayList<>(THREE);
    java.util.Collections.reverse(reversed);
    Rendezvous other = new Rendezvous(reversed);
    for (String key : keys(500)) {
      assertThat(placement.nodeOf(key))
          .isEqualTo(new Rendezvous(THREE).nodeOf(key))
          .isEqualTo(other.nodeOf(key))
          .isEqualTo(placement.ranking(key).getFirst());
    }
  }

  @Test
  void keysSpreadEvenlyOverTheNodes() {
    Rendezvous placement = new Rendezvous(THREE);
    Map<String, Integer> counts = new HashMap<>();
    for (String key : keys(3000)) {
      counts.merge(placement.nodeOf(key), 1, Integer::sum);
    }
    System.out.println("3000 keys over 3 nodes: " + counts);
    assertThat(counts).hasSize(3);
    // 1000 expected each; binomial standard deviation ~26, so 850..1150 is ~6 sigma.
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(850, 1150));
  }

  @Test
  void addingANodeMovesOnlyTheKeysTheNewNodeWinsAboutOneInNPlusOne() {
    for (int n = 1; n <= 5; n++) {
      Rendezvous before = new Rendezvous(pods(n));
      Rendezvous after = new Rendezvous(pods(n + 1));
      String added = pods(n + 1).getLast();
      int moved = 0;
      for (String key : keys(6000)) {
        String was = before.nodeOf(key);
        String is = after.nodeOf(key);
        if (!was.equals(is)) {
          moved++;
          assertThat(is).as("a moved key moves onto the new node").isEqualTo(added);
        }
      }
      double share = moved / 6000.0;
      System.out.printf("%d -> %d nodes: %.3f of the keys moved%n", n, n + 1, share);
      assertThat(share).isCloseTo(1.0 / (n + 1), org.assertj.core.data.Offset.offset(0.03));
    }
  }

  @Test
  void removingANodeMovesOnlyItsOwnKeys() {
    Rendezvous before = new Rendezvous(pods(4));
    Rendezvous after = new Rendezvous(pods(4).subList(0, 3));
    for (String key : keys(2000)) {
      if (!before.nodeOf(key).equals(pods(4).getLast())) {
        assertThat(after.nodeOf(key)).isEqualTo(before.nodeOf(key));
      }
    }
  }

  @Test
  void nodesMustBeGivenDistinctAndNamed() {
    assertThatThrownBy(() -> new Rendezvous(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Rendezvous(List.of("a:1", "a:1")))
        .hasMessageContaining("distinct");
    assertThatThrownBy(() -> new Rendezvous(List.of(" "))).hasMessageContaining("blank");
  }
}
