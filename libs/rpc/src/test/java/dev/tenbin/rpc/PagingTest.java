package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PagingTest {
  private static final List<Integer> ITEMS = IntStream.range(0, 2_500).boxed().toList();

  @Test
  void pagesFollowedToTheEndGiveEveryItemOnceInOrder() {
    List<Integer> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      Paging.Page<Integer> page = Paging.page("jobs", ITEMS, 700, token);
      seen.addAll(page.items());
      token = page.nextPageToken();
      pages++;
    } while (!token.isEmpty());
    assertThat(seen).isEqualTo(ITEMS);
    assertThat(pages).isEqualTo(4);
  }

  @Test
  void noPageSizeAndTooLargeAPageSizeBothMeanTheLargestPage() {
    assertThat(Paging.page("jobs", ITEMS, 0, "").items()).hasSize(Paging.MAX_PAGE_SIZE);
    assertThat(Paging.page("jobs", ITEMS, 1_000_000, "").items()).hasSize(Paging.MAX_PAGE_SIZE);
    assertThat(Paging.page("jobs", List.of(1, 2), 0, "").nextPageToken()).isEmpty();
  }

  @Test
  void aNegativePageSizeIsRefusedNamingTheField() {
    assertThatThrownBy(() -> Paging.page("jobs", ITEMS, -1, ""))
        .isInstanceOfSatisfying(
            InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("page_size"));
  }

  @Test
  void aTokenOfAnotherListingOrNoTokenAtAllIsRefusedNamingTheField() {
    String jobsToken = Paging.page("jobs", ITEMS, 10, "").nextPageToken();
    for (String token : List.of("not a token!", "bm90IGEgdG9rZW4", jobsToken)) {
      assertThatThrownBy(() -> Paging.page("collections", ITEMS, 10, token))
          .as(token)
          .isInstanceOfSatisfying(
              InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("page_token"));
    }
  }
}
