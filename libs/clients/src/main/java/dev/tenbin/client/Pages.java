package dev.tenbin.client;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Every item of a paged listing ({@code page_size}, {@code page_token}, {@code next_page_token}):
 * pages are asked for one after the other until the service gives no next token.
 */
public final class Pages {
  /** A page of a listing: its items and where the next one starts ("" on the last page). */
  public record Page<T>(List<T> items, String nextPageToken) {}

  /** A guard against a service that keeps handing out tokens. */
  static final int MAX_PAGES = 100_000;

  private Pages() {}

  /** Every item, reading pages from {@code pageAt} (given the page token, "" for the first). */
  public static <T> List<T> all(Function<String, Page<T>> pageAt) {
    List<T> items = new ArrayList<>();
    String token = "";
    for (int pages = 0; pages < MAX_PAGES; pages++) {
      Page<T> page = pageAt.apply(token);
      items.addAll(page.items());
      if (page.nextPageToken().isEmpty()) {
        return items;
      }
      token = page.nextPageToken();
    }
    throw new IllegalStateException("a listing went on for more than " + MAX_PAGES + " pages");
  }
}
