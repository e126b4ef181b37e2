package dev.tenbin.eval.browse;

/**
 * The site's navigation that the result pages start with when a web UI serves them: its HTML,
 * trusted and put as it is at the top of every page's body, and its style sheet, added after the
 * pages' own (so it should be scoped to the navigation's class, to style nothing else).
 *
 * @param html the navigation's HTML ("" for none)
 * @param style the CSS rules of the navigation ("" for none)
 */
public record SiteNavigation(String html, String style) {
  /** No navigation: pages that stand alone. */
  public static final SiteNavigation NONE = new SiteNavigation("", "");

  public SiteNavigation {
    html = html == null ? "" : html;
    style = style == null ? "" : style;
  }
}
