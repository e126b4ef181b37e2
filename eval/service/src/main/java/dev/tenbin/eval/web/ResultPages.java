package dev.tenbin.eval.web;

import java.util.List;
import java.util.Map;

/**
 * The result pages of the web UI, {@code /leaderboard} and {@code /compare}: each a whole HTML
 * document (with {@link PageLayout#siteNavigation} as its header, styled) built from the URL's
 * query parameters, each name with all its values in order.
 */
public interface ResultPages {
  /** The page at {@code /leaderboard}. */
  String leaderboard(Map<String, List<String>> query);

  /** The page at {@code /compare}. */
  String compare(Map<String, List<String>> query);
}
