package dev.tenbin.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Pages}: every page is read, in order, until a page gives no next token. */
class PagesTest {
  @Test
  void pagesAreReadInOrderUntilTheTokenIsEmpty() {
    Map<String, Pages.Page<Integer>> listing =
        Map.of(
            "", new Pages.Page<>(List.of(1, 2), "b"),
            "b", new Pages.Page<>(List.of(), "c"),
            "c", new Pages.Page<>(List.of(3), ""));
    List<String> asked = new ArrayList<>();
    List<Integer> all =
        Pages.all(
            token -> {
              asked.add(token);
              return listing.get(token);
            });
    assertThat(all).containsExactly(1, 2, 3);
    assertThat(asked).containsExactly("", "b", "c");
  }

  @Test
  void aListingThatNeverEndsIsRefused() {
    assertThatThrownBy(() -> Pages.all(token -> new Pages.Page<>(List.of(), "again")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(String.valueOf(Pages.MAX_PAGES));
  }
}
