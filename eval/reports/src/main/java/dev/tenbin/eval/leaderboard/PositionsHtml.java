package dev.tenbin.eval.leaderboard;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionBin;
import dev.tenbin.eval.positions.PositionBucket;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.store.ResultStore;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The position view of the HTML leaderboard (PosIR): a table of every analysed cell with its PSI
 * per length bucket, the slope and reference correlation of its main bucket (the one holding most
 * queries), sortable and filterable by family and variant (positions.js); per cell a bucket × bin
 * heatmap of mean nDCG@10; and the nDCG@10 bin profiles of the main bucket as lines, for the
 * systems ticked in the table (to start with, the first four rows of the most position-sensitive
 * task, {@link #startingRows}); a colour scale above the heatmaps. Drawn here so the page reads
 * without script; the script re-sorts, filters and redraws the lines.
 */
final class PositionsHtml {
  static final int PROFILE_WIDTH = 560;
  static final int PROFILE_HEIGHT = 260;
  private static final int CELL_WIDTH = 14;
  private static final int CELL_HEIGHT = 14;
  private static final int LABEL_WIDTH = 78;
  private static final int STARTING_PROFILES = 4;
  private static final String[] LINE_COLOURS = {
    "#1f77b4", "#d9480f", "#2b8a3e", "#862e9c", "#e67700", "#0b7285", "#c2255c", "#5c940d"
  };

  private PositionsHtml() {}

  /** Appends the section (nothing when no cell has an analysis). */
  static void append(StringBuilder html, List<PositionsView.Row> rows) {
    if (rows.isEmpty()) {
      return;
    }
    String reference =
        rows.stream()
            .map(r -> r.analysis().reference())
            .filter(java.util.Objects::nonNull)
            .findFirst()
            .orElse(null);
    html.append("<h2 id=\"positions-heading\">Position bias</h2>\n<p class=\"note\">")
        .append(
            Html.escape(
                "Mean nDCG@10 by the relative position of the answer in its document (20 bins),"
                    + " per document length in tokens ("
                    + rows.getFirst().analysis().tokenizer()
                    + "). PSI = 1 − min/max over the bins with at least "
                    + rows.getFirst().analysis().minCount()
                    + " queries: lower is more position-robust. "
                    + (reference == null
                        ? "No reference system in these cells."
                        : "ref r: Pearson correlation of the main bucket's profile with "
                            + reference
                            + "'s.")))
        .append(
            "</p>\n<section id=\"position-controls\" aria-label=\"position filters\"></section>\n")
        .append("<div class=\"table-wrap\"><table id=\"positions\"><thead><tr>")
        .append("<th data-psort=\"task\">Task</th><th data-psort=\"system\">System</th>")
        .append("<th data-psort=\"variant\">Variant</th><th>Mode</th>");
    List<PositionBucket> layout = rows.getFirst().analysis().buckets();
    for (int b = 0; b < layout.size(); b++) {
      html.append("<th data-psort=\"psi")
          .append(b)
          .append("\">PSI ")
          .append(Html.escape(bucketName(layout.get(b))))
          .append("</th>");
    }
    html.append(
            "<th data-psort=\"slope\">slope (main)</th><th data-psort=\"ref\">ref r (main)</th>")
        .append("<th>profile</th></tr></thead><tbody>");
    java.util.Set<Integer> starting = startingRows(rows);
    for (int i = 0; i < rows.size(); i++) {
      PositionsView.Row row = rows.get(i);
      PositionBucket main = main(row.analysis());
      html.append("<tr class=\"position-row\" data-pos-row=\"")
          .append(i)
          .append("\" data-family=\"")
          .append(Html.escape(row.key().system().family()))
          .append("\" data-variant=\"")
          .append(Html.escape(row.key().variant()))
          .append("\"><td>")
          .append(Html.escape(row.task()))
          .append("</td><td>")
          .append(Html.escape(row.key().system().name()))
          .append("</td><td>")
          .append(Html.escape(row.key().variant()))
          .append("</td><td>")
          .append(Html.escape(row.key().mode().wireName()))
          .append("</td>");
      for (PositionBucket bucket : row.analysis().buckets()) {
        html.append("<td class=\"num\">").append(number(bucket.psi())).append("</td>");
      }
      html.append("<td class=\"num\">")
          .append(number(main == null ? null : main.slope()))
          .append("</td><td class=\"num\">")
          .append(number(main == null ? null : main.referencePearson()))
          .append("</td><td><input type=\"checkbox\" class=\"profile-toggle\" data-pos-row=\"")
          .append(i)
          .append("\"")
          .append(starting.contains(i) ? " checked" : "")
          .append(" aria-label=\"show the profile\"></td></tr>");
    }
    html.append("</tbody></table></div>\n<h3>Bin profiles (main length bucket)</h3>\n<figure>");
    profiles(html, rows, starting);
    html.append("<figcaption><ul id=\"profile-legend\">");
    int colour = 0;
    for (int i = 0; i < rows.size(); i++) {
      if (starting.contains(i)) {
        html.append("<li><span class=\"swatch\" style=\"background:")
            .append(LINE_COLOURS[colour++ % LINE_COLOURS.length])
            .append("\"></span>")
            .append(Html.escape(rows.get(i).task() + " " + rows.get(i).system()))
            .append("</li>");
      }
    }
    html.append("</ul></figcaption></figure>\n<h3>Heatmaps: length bucket × position bin</h3>\n");
    colourScale(html, rows.getFirst().analysis().minCount());
    html.append("<section id=\"heatmaps\">");
    for (int i = 0; i < rows.size(); i++) {
      heatmap(html, rows.get(i), i);
    }
    html.append("</section>\n<script type=\"application/json\" id=\"positions-data\">")
        .append(HtmlReport.scriptSafe(json(rows)))
        .append("</script>\n");
  }

  /**
   * The rows whose profiles the page opens with: the first {@value #STARTING_PROFILES} (in table
   * order) of the most position-sensitive task, the one whose rows reach the highest main-bucket
   * PSI (the first such task on a tie; the first task when no row has a PSI).
   */
  static java.util.Set<Integer> startingRows(List<PositionsView.Row> rows) {
    String task = rows.getFirst().task();
    double highest = Double.NEGATIVE_INFINITY;
    for (PositionsView.Row row : rows) {
      PositionBucket main = main(row.analysis());
      if (main != null && main.psi() != null && main.psi() > highest) {
        highest = main.psi();
        task = row.task();
      }
    }
    java.util.Set<Integer> starting = new java.util.LinkedHashSet<>();
    for (int i = 0; i < rows.size() && starting.size() < STARTING_PROFILES; i++) {
      if (rows.get(i).task().equals(task)) {
        starting.add(i);
      }
    }
    return starting;
  }

  /**
   * The heatmaps' colour scale: nDCG@10 from 0 to 1, light to dark, with the colours of a bin
   * without queries and of one with fewer than {@code minCount}. The words are HTML around a small
   * SVG bar (whose tick numbers fit inside it), so they wrap rather than being clipped.
   */
  private static void colourScale(StringBuilder html, int minCount) {
    int width = 200;
    int pad = 14;
    html.append("<div id=\"heatmap-scale\" class=\"legend\"><span>nDCG@10</span>")
        .append(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"30\" role=\"img\""
                    + " aria-label=\"colour scale: nDCG@10 from 0 to 1\"><defs>"
                    + "<linearGradient id=\"heatmap-gradient\">",
                width + 2 * pad))
        .append("<stop offset=\"0\" stop-color=\"")
        .append(colour(0))
        .append("\"/><stop offset=\"0.5\" stop-color=\"")
        .append(colour(0.5))
        .append("\"/><stop offset=\"1\" stop-color=\"")
        .append(colour(1))
        .append("\"/></linearGradient></defs>")
        .append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"2\" width=\"%d\" height=\"12\" fill=\"url(#heatmap-gradient)\""
                    + " stroke=\"#c5ccd3\"/>",
                pad,
                width));
    for (int t = 0; t <= 4; t++) {
      html.append(
          String.format(
              Locale.ROOT,
              "<text class=\"tick\" x=\"%.1f\" y=\"27\" text-anchor=\"middle\">%.2f</text>",
              pad + width * t / 4.0,
              t / 4.0));
    }
    html.append("</svg>")
        .append("<span><span class=\"swatch\" style=\"background:#eceff2\"></span>no query</span>")
        .append("<span><span class=\"swatch\" style=\"background:")
        .append(colour(0.75))
        .append(";opacity:0.45\"></span>faded: fewer than ")
        .append(minCount)
        .append(" queries</span></div>\n");
  }

  /** The bucket holding most queries (the first of equals), or null when none has queries. */
  static PositionBucket main(PositionAnalysis analysis) {
    return analysis.buckets().stream()
        .filter(b -> b.queries() > 0)
        .max(Comparator.comparingInt(PositionBucket::queries))
        .orElse(null);
  }

  private static void profiles(
      StringBuilder html, List<PositionsView.Row> rows, java.util.Set<Integer> starting) {
    int left = 44;
    int right = 12;
    int top = 12;
    int bottom = 34;
    double plotWidth = PROFILE_WIDTH - left - right;
    double plotHeight = PROFILE_HEIGHT - top - bottom;
    html.append(
            "<svg id=\"position-profiles\" class=\"pareto\" xmlns=\"http://www.w3.org/2000/svg\"")
        .append(" width=\"")
        .append(PROFILE_WIDTH)
        .append("\" height=\"")
        .append(PROFILE_HEIGHT)
        .append("\" role=\"img\" aria-label=\"nDCG@10 by relative position\">");
    for (int t = 0; t <= 4; t++) {
      double y = top + plotHeight - plotHeight * t / 4.0;
      html.append(
              String.format(
                  Locale.ROOT,
                  "<line class=\"grid\" x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                  left,
                  left + plotWidth,
                  y,
                  y))
          .append(
              String.format(
                  Locale.ROOT,
                  "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>",
                  left - 4,
                  y + 4,
                  t / 4.0));
    }
    for (int t = 0; t <= 4; t++) {
      double x = left + plotWidth * t / 4.0;
      html.append(
          String.format(
              Locale.ROOT,
              "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.2f</text>",
              x,
              top + plotHeight + 14,
              t / 4.0));
    }
    html.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">relative position of the answer (bin centre)</text>",
            left + plotWidth / 2,
            PROFILE_HEIGHT - 4));
    html.append("<g id=\"profile-lines\">");
    int colour = 0;
    for (int i = 0; i < rows.size(); i++) {
      if (starting.contains(i)) {
        html.append(
            line(
                rows.get(i),
                i,
                LINE_COLOURS[colour++ % LINE_COLOURS.length],
                left,
                top,
                plotWidth,
                plotHeight));
      }
    }
    html.append("</g></svg>");
  }

  private static String line(
      PositionsView.Row row,
      int index,
      String colour,
      int left,
      int top,
      double width,
      double height) {
    PositionBucket main = main(row.analysis());
    StringBuilder points = new StringBuilder();
    if (main != null) {
      for (PositionBin bin : main.bins()) {
        if (bin.queries() >= row.analysis().minCount() && bin.ndcgAt10() != null) {
          double x = left + width * (bin.bin() + 0.5) / main.bins().size();
          double y = top + height - height * bin.ndcgAt10();
          points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
      }
    }
    return "<polyline class=\"profile\" data-pos-row=\""
        + index
        + "\" fill=\"none\" stroke=\""
        + colour
        + "\" stroke-width=\"1.8\" points=\""
        + points.toString().strip()
        + "\"><title>"
        + Html.escape(row.task() + " " + row.system())
        + "</title></polyline>";
  }

  private static void heatmap(StringBuilder html, PositionsView.Row row, int index) {
    List<PositionBucket> buckets = row.analysis().buckets();
    int bins = buckets.isEmpty() ? 0 : buckets.getFirst().bins().size();
    int width = LABEL_WIDTH + bins * CELL_WIDTH + 4;
    int height = buckets.size() * CELL_HEIGHT + 18;
    html.append("<figure class=\"heatmap\" data-pos-row=\"")
        .append(index)
        .append("\"><figcaption>")
        .append(Html.escape(row.task() + " · " + row.system()))
        .append("</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\">");
    for (int b = 0; b < buckets.size(); b++) {
      PositionBucket bucket = buckets.get(b);
      int y = b * CELL_HEIGHT;
      html.append("<text class=\"tick\" x=\"")
          .append(LABEL_WIDTH - 4)
          .append("\" y=\"")
          .append(y + CELL_HEIGHT - 3)
          .append("\" text-anchor=\"end\">")
          .append(Html.escape(bucketName(bucket)))
          .append("</text>");
      for (PositionBin bin : bucket.bins()) {
        String fill =
            bin.queries() == 0 || bin.ndcgAt10() == null ? "#eceff2" : colour(bin.ndcgAt10());
        html.append("<rect x=\"")
            .append(LABEL_WIDTH + bin.bin() * CELL_WIDTH)
            .append("\" y=\"")
            .append(y)
            .append("\" width=\"")
            .append(CELL_WIDTH - 1)
            .append("\" height=\"")
            .append(CELL_HEIGHT - 1)
            .append("\" fill=\"")
            .append(fill)
            .append(bin.queries() < row.analysis().minCount() ? "\" fill-opacity=\"0.45" : "")
            .append("\"><title>")
            .append(
                Html.escape(
                    String.format(
                        Locale.ROOT,
                        "%s tokens, bin %d: %d queries, nDCG@10 %s",
                        bucketName(bucket),
                        bin.bin(),
                        bin.queries(),
                        bin.ndcgAt10() == null
                            ? "–"
                            : String.format(Locale.ROOT, "%.3f", bin.ndcgAt10()))))
            .append("</title></rect>");
      }
    }
    html.append("<text class=\"tick\" x=\"")
        .append(LABEL_WIDTH)
        .append("\" y=\"")
        .append(height - 3)
        .append("\">start</text><text class=\"tick\" x=\"")
        .append(LABEL_WIDTH + bins * CELL_WIDTH)
        .append("\" y=\"")
        .append(height - 3)
        .append("\" text-anchor=\"end\">end</text></svg></figure>");
  }

  /** A light-to-dark blue for nDCG@10 in 0..1. */
  static String colour(double value) {
    double v = Math.max(0, Math.min(1, value));
    int[] light = {0xf7, 0xfb, 0xff};
    int[] dark = {0x08, 0x30, 0x6b};
    int r = (int) Math.round(light[0] + (dark[0] - light[0]) * v);
    int g = (int) Math.round(light[1] + (dark[1] - light[1]) * v);
    int b = (int) Math.round(light[2] + (dark[2] - light[2]) * v);
    return String.format(Locale.ROOT, "#%02x%02x%02x", r, g, b);
  }

  static String bucketName(PositionBucket bucket) {
    return bucket.maxTokens() == null
        ? ">" + bucket.minTokens()
        : bucket.minTokens() + "–" + bucket.maxTokens();
  }

  private static String number(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.3f", value);
  }

  /** What positions.js redraws from: per row its labels, PSI per bucket and main profile. */
  private static String json(List<PositionsView.Row> rows) {
    ArrayNode array = ResultStore.JSON.createArrayNode();
    for (int i = 0; i < rows.size(); i++) {
      PositionsView.Row row = rows.get(i);
      PositionBucket main = main(row.analysis());
      ObjectNode node = array.addObject();
      node.put("row", i);
      node.put("task", row.task());
      node.put("system", row.key().system().name());
      node.put("family", row.key().system().family());
      node.put("variant", row.key().variant());
      node.put("mode", row.key().mode().wireName());
      node.put("min_count", row.analysis().minCount());
      ArrayNode psi = node.putArray("psi");
      row.analysis().buckets().forEach(b -> psi.add(b.psi()));
      node.put("slope", main == null ? null : main.slope());
      node.put("ref", main == null ? null : main.referencePearson());
      ArrayNode profile = node.putArray("profile");
      if (main != null) {
        for (PositionBin bin : main.bins()) {
          profile.add(bin.queries() >= row.analysis().minCount() ? bin.ndcgAt10() : null);
        }
      }
    }
    return array.toString();
  }
}
