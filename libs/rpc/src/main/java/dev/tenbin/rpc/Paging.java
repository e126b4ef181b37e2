package dev.tenbin.rpc;

import dev.tenbin.core.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * One page of a listing ({@code page_size}, {@code page_token}, {@code next_page_token}), the same
 * for every List RPC. A page holds at most {@value #MAX_PAGE_SIZE} items (a page size of 0 asks for
 * that many, a larger one is read as that many). A token is opaque to clients: it names the listing
 * and the position the next page starts at, so items added or removed between two pages may shift
 * what the next page holds, as in any listing paged by position.
 */
public final class Paging {
  /** Items of a page at most, and of a page that asks for none in particular. */
  public static final int MAX_PAGE_SIZE = 1000;

  /** A page and where the next one starts ("" on the last page). */
  public record Page<T>(List<T> items, String nextPageToken) {}

  private Paging() {}

  /**
   * The page of {@code all} (the whole listing, in its order) that {@code pageSize} and {@code
   * pageToken} ask for.
   *
   * @param listing the listing's name, e.g. "collections": a token of another listing is refused
   * @throws InvalidInputException naming {@code page_size} when it is negative, or {@code
   *     page_token} when it is not one this listing gave
   */
  public static <T> Page<T> page(String listing, List<T> all, int pageSize, String pageToken) {
    if (pageSize < 0) {
      throw new InvalidInputException(
          "page_size", "page_size must not be negative, got " + pageSize);
    }
    int size = pageSize == 0 ? MAX_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
    int from = pageToken.isEmpty() ? 0 : offset(listing, pageToken);
    int to = Math.min(all.size(), from + size);
    List<T> items = from >= all.size() ? List.of() : List.copyOf(all.subList(from, to));
    return new Page<>(items, to < all.size() ? token(listing, to) : "");
  }

  static String token(String listing, int offset) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((listing + ":" + offset).getBytes(StandardCharsets.UTF_8));
  }

  private static int offset(String listing, String pageToken) {
    String decoded;
    try {
      decoded = new String(Base64.getUrlDecoder().decode(pageToken), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw refused();
    }
    String prefix = listing + ":";
    if (!decoded.startsWith(prefix)) {
      throw refused();
    }
    try {
      int offset = Integer.parseInt(decoded.substring(prefix.length()));
      if (offset < 0) {
        throw refused();
      }
      return offset;
    } catch (NumberFormatException e) {
      throw refused();
    }
  }

  private static InvalidInputException refused() {
    return new InvalidInputException(
        "page_token", "page_token is not a next_page_token of this listing");
  }
}
