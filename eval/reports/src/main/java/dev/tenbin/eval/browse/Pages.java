package dev.tenbin.eval.browse;

import dev.tenbin.eval.leaderboard.HtmlReport;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * What the browse pages share: the document around a page's body (the per-job leaderboard's style
 * sheet, the site's navigation on top with its style), escaping and the addresses they link to.
 */
final class Pages {
  /** Where the web UI serves the all-jobs leaderboard. */
  static final String LEADERBOARD_PATH = "/leaderboard";

  /** Where the web UI serves the comparison of two systems. */
  static final String COMPARE_PATH = "/compare";

  private Pages() {}

  static String escape(String text) {
    return HtmlReport.escape(text == null ? "" : text);
  }

  /** A complete HTML document: the site's {@code navigation} (its style too) above the body. */
  static String document(String title, SiteNavigation navigation, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
        + escape(title)
        + "</title>\n<style>\n"
        + HtmlReport.styles()
        + BROWSE_STYLES
        + navigation.style()
        + "</style>\n</head>\n<body data-render=\"static\">\n"
        + navigation.html()
        + body
        + "</body>\n</html>\n";
  }

  /** Styles of the browse pages' own parts, after the leaderboard's. */
  private static final String BROWSE_STYLES =
      """
      form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: 1rem 0; padding: .75rem; background: #f4f6f8; border-radius: 6px; }
      form.filters label { display: flex; flex-direction: column; font-size: 12px; color: #5a6570; max-width: 14rem; }
      form.filters select, form.filters input { font: inherit; max-width: 14rem; }
      form.filters fieldset { border: 0; padding: 0; margin: 0; font-size: 12px; }
      form.filters button { font: inherit; padding: .2rem .8rem; }
      a:focus, select:focus, input:focus, button:focus { outline: 2px solid #1f77b4; outline-offset: 1px; }
      .error { color: #b42318; }
      .jobs a { margin-right: .4em; }
      #leaderboard td { white-space: normal; }
      #leaderboard td.num { white-space: nowrap; }
      #leaderboard td.row-key { min-width: 8em; }
      #leaderboard .key-detail { color: #5a6570; font-size: 12px; }
      .moved td.doc { max-width: 16rem; overflow-wrap: anywhere; white-space: normal; }
      td.judged { font-weight: 600; color: #1a7f37; }
      .side-by-side { display: flex; flex-wrap: wrap; gap: 1rem; }
      """;

  /** {@code text} encoded for a URL query value. */
  static String urlEncode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  /** {@code text} encoded as one URL path segment. */
  static String pathSegment(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** A job's page: {@code /jobs/{jobId}}. */
  static String jobHref(String jobId) {
    return "/jobs/" + pathSegment(jobId);
  }

  /** A file of a job folder: {@code /jobs/{jobId}/files/{path}} ("/" separated). */
  static String fileHref(String jobId, String path) {
    StringBuilder href = new StringBuilder(jobHref(jobId)).append("/files");
    for (String segment : path.split("/")) {
      href.append('/').append(pathSegment(segment));
    }
    return href.toString();
  }
}
