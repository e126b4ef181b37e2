package dev.tenbin.eval.web;

import dev.tenbin.eval.browse.SiteNavigation;
import dev.tenbin.eval.leaderboard.HtmlReport;

/**
 * The one frame of every page of the eval service's web UI: the document head with its inline
 * style, the navigation (Jobs, Leaderboard, Compare, Import, and Sign out when the service takes
 * tokens) and {@link #escape}, which every value printed into a page goes through. Nothing is
 * fetched from elsewhere: the style and the scripts are inline.
 *
 * <p>A page's inline script also marks on {@code <body>} whether the page fits its window: {@code
 * data-fits="yes"}, or {@code data-fits="no"} and {@code data-overflow} naming the elements wider
 * than the window (a check the browser tests read).
 */
public final class PageLayout {
  private PageLayout() {}

  private static final String STYLE =
      """
      *{box-sizing:border-box}
      body{font-family:system-ui,sans-serif;margin:0;color:#1d2330;background:#fbfbfd;font-size:15px}
      main{padding:1rem;max-width:100%}
      h1{font-size:1.35rem;margin:.2rem 0 1rem}
      h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
      .scroll{overflow-x:auto;max-width:100%}
      table{border-collapse:collapse;width:100%}
      th,td{border-bottom:1px solid #dde;padding:.3rem .5rem;text-align:left;vertical-align:top}
      th{background:#eef0f6}
      td.num{text-align:right;font-variant-numeric:tabular-nums}
      .wrap{overflow-wrap:anywhere;word-break:break-word}
      .state-SUCCEEDED{color:#17663a}.state-FAILED{color:#a11}.state-CANCELLED{color:#777}.state-RUNNING{color:#1a4fa0}
      progress{width:6rem}
      li{overflow-wrap:anywhere}
      pre{background:#f1f2f6;padding:.6rem;overflow-x:auto;max-width:100%;white-space:pre-wrap;overflow-wrap:anywhere}
      .error{color:#a11}
      a:focus,button:focus,input:focus{outline:2px solid #36c}
      form.login{max-width:28rem}
      form.login input{width:100%;padding:.4rem;font:inherit}
      form.login button{margin-top:.6rem;padding:.4rem 1rem;font:inherit}
      form.stacked{max-width:40rem;display:flex;flex-direction:column;gap:.2rem}
      form.stacked label{margin-top:.5rem}
      form.stacked input{padding:.35rem;font:inherit;max-width:100%}
      form.stacked button{margin-top:.8rem;padding:.4rem 1rem;font:inherit;align-self:flex-start}
      """;

  /**
   * The style of {@link #navigation}, scoped to its class {@code site-nav}: every page of the UI
   * has it, the result pages ({@link WarehousePages}) after their own style sheet, whose rules for
   * {@code header} and {@code a} it overrides by being more specific.
   */
  static final String NAVIGATION_STYLE =
      """
      .site-nav{background:#1d2330;color:#fff;padding:.5rem 1rem;margin:0 0 .75rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap;font:15px/1.4 system-ui,sans-serif}
      .site-nav a,.site-nav button{color:#fff;font:inherit;text-decoration:none;padding:.25rem .5rem;border-radius:4px}
      .site-nav a:hover,.site-nav a:focus,.site-nav button:hover,.site-nav button:focus{background:#3b4560;outline:2px solid #9ab}
      .site-nav .brand{font-weight:bold;margin-right:1rem}
      .site-nav form{margin:0 0 0 auto}
      .site-nav button{background:none;border:1px solid #889;cursor:pointer}
      """;

  private static final String FIT_CHECK =
      """
      <script>
      addEventListener('load', function () {
        var width = document.documentElement.clientWidth, wide = [];
        document.querySelectorAll('body *').forEach(function (e) {
          var box = e.getBoundingClientRect();
          if (box.width > 0 && box.right > width + 0.5 && !e.closest('.scroll')) {
            wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''));
          }
        });
        document.body.setAttribute('data-fits', wide.length ? 'no' : 'yes');
        if (wide.length) document.body.setAttribute('data-overflow', wide.slice(0, 20).join(' '));
      });
      </script>
      """;

  /**
   * A whole HTML document.
   *
   * @param title the page title (escaped here)
   * @param signOut whether to show the Sign out button (the service takes tokens)
   * @param head more of the head, already HTML (a meta refresh)
   * @param body the body's content, already HTML
   */
  public static String page(String title, boolean signOut, String head, String body) {
    StringBuilder out = new StringBuilder(body.length() + 4096);
    out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<title>")
        .append(escape(title))
        .append(" · Tenbin eval</title>\n<style>")
        .append(STYLE)
        .append(NAVIGATION_STYLE)
        .append("</style>\n")
        .append(head)
        .append("</head>\n<body>\n")
        .append(navigation(signOut))
        .append("<main>\n")
        .append(body)
        .append("</main>\n")
        .append(FIT_CHECK)
        .append("</body>\n</html>\n");
    return out.toString();
  }

  /** The shared header: the service's pages, and Sign out (a POST form) when tokens are on. */
  public static String navigation(boolean signOut) {
    return "<header class=\"site-nav\"><span class=\"brand\">Tenbin eval</span><nav>"
        + "<a href=\"/jobs\">Jobs</a> <a href=\"/leaderboard\">Leaderboard</a>"
        + " <a href=\"/leaderboard#compare-form\">Compare</a> <a href=\"/import\">Import</a></nav>"
        + (signOut
            ? "<form method=\"post\" action=\"/logout\"><button type=\"submit\">Sign out</button>"
                + "</form>"
            : "")
        + "</header>\n";
  }

  /** The shared header with its style, for pages that have a style sheet of their own. */
  public static SiteNavigation siteNavigation(boolean signOut) {
    return new SiteNavigation(navigation(signOut), NAVIGATION_STYLE);
  }

  /**
   * {@code value} safe as HTML text and inside a quoted attribute ({@link HtmlReport#escape}, the
   * result pages' escaping); null is "".
   */
  public static String escape(Object value) {
    return value == null ? "" : HtmlReport.escape(value.toString());
  }

  /** A path segment (a job id, a file path's names) safe inside a URL; '/' kept between names. */
  public static String urlPath(String path) {
    StringBuilder out = new StringBuilder();
    for (String name : path.split("/", -1)) {
      if (!out.isEmpty()) {
        out.append('/');
      }
      out.append(
          java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8)
              .replace("+", "%20"));
    }
    return out.toString();
  }
}
