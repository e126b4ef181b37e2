package dev.tenbin.eval.leaderboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An inline SVG scatter plot of quality against a cost, with the Pareto frontier highlighted and
 * connected. The cost axis is logarithmic when every cost is positive and they span a factor of 10
 * or more. Points that would overlap (within {@value #OVERLAP_PX} px of an earlier one, such as
 * variants of equal latency and score) are moved apart deterministically: the k-th point on a spot
 * goes {@code 6·√k} px out at k golden angles, so each stays visible and hoverable; {@link #table}
 * lists the exact values beside the chart. Every point carries its number (1 = the cheapest), set
 * apart from the other numbers and points ({@link #numberLabels}); {@link #key} is the legend and
 * the numbered names, to put right after the chart. The page's script draws the same chart, key and
 * table (leaderboard.js, {@code paretoSvg}, {@code paretoKey}, {@code paretoTable}) when filters
 * change; keep them in step.
 */
final class ParetoChart {
  static final int WIDTH = 520;
  static final int HEIGHT = 340;
  private static final int LEFT = 64;
  private static final int RIGHT = 20;
  private static final int TOP = 30;
  private static final int BOTTOM = 52;
  static final double OVERLAP_PX = 2.0;
  private static final double GOLDEN_ANGLE = 2.399963;

  private ParetoChart() {}

  /**
   * The chart as an {@code <svg>} element.
   *
   * @param id the element id
   * @param title the chart title
   * @param costLabel what the x axis measures
   * @param qualityLabel what the y axis measures
   * @param raw the points (frontier flags are recomputed)
   */
  static String svg(
      String id,
      String title,
      String costLabel,
      String qualityLabel,
      List<ParetoFrontier.Point> raw) {
    List<ParetoFrontier.Point> points = ParetoFrontier.of(raw);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg id=\"%s\" class=\"pareto\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">",
            Html.escape(id),
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT,
            Html.escape(title)));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text class=\"chart-title\" x=\"%d\" y=\"18\">%s</text>",
            LEFT,
            Html.escape(title)));
    if (points.isEmpty()) {
      svg.append(
          String.format(
              Locale.ROOT,
              "<text class=\"empty\" x=\"%d\" y=\"%d\">no ranked row has this cost</text></svg>",
              LEFT,
              HEIGHT / 2));
      return svg.toString();
    }
    double minCost = points.stream().mapToDouble(ParetoFrontier.Point::cost).min().orElseThrow();
    double maxCost = points.stream().mapToDouble(ParetoFrontier.Point::cost).max().orElseThrow();
    boolean log = minCost > 0 && maxCost / minCost >= 10;
    Axis x = log ? Axis.log(minCost, maxCost) : Axis.linear(minCost, maxCost);
    double minQuality =
        points.stream().mapToDouble(ParetoFrontier.Point::quality).min().orElseThrow();
    double maxQuality =
        points.stream().mapToDouble(ParetoFrontier.Point::quality).max().orElseThrow();
    Axis y = Axis.linear(minQuality, maxQuality);
    int plotRight = WIDTH - RIGHT;
    int plotBottom = HEIGHT - BOTTOM;

    svg.append(
        String.format(
            Locale.ROOT,
            "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/><line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
            LEFT,
            plotBottom,
            plotRight,
            plotBottom,
            LEFT,
            TOP,
            LEFT,
            plotBottom));
    for (double tick : x.ticks) {
      double px = LEFT + x.fraction(tick) * (plotRight - LEFT);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
              px,
              TOP,
              px,
              plotBottom,
              px,
              plotBottom + 16,
              Numbers.compact(tick)));
    }
    for (double tick : y.ticks) {
      double py = plotBottom - y.fraction(tick) * (plotBottom - TOP);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
              LEFT,
              py,
              plotRight,
              py,
              LEFT - 6,
              py + 4,
              Numbers.compact(tick)));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
            (LEFT + plotRight) / 2,
            HEIGHT - 10,
            Html.escape(costLabel + (log ? " (log scale)" : ""))));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis-label\" transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>",
            (TOP + plotBottom) / 2,
            Html.escape(qualityLabel)));

    List<String> line = new ArrayList<>();
    StringBuilder circles = new StringBuilder();
    List<double[]> placed = new ArrayList<>();
    List<double[]> centres = new ArrayList<>();
    for (ParetoFrontier.Point point : points) {
      double rawX = LEFT + x.fraction(point.cost()) * (plotRight - LEFT);
      double rawY = plotBottom - y.fraction(point.quality()) * (plotBottom - TOP);
      int before = 0;
      for (double[] other : placed) {
        if (Math.abs(other[0] - rawX) <= OVERLAP_PX && Math.abs(other[1] - rawY) <= OVERLAP_PX) {
          before++;
        }
      }
      placed.add(new double[] {rawX, rawY});
      double px =
          rawX + (before == 0 ? 0 : 6 * Math.sqrt(before) * Math.cos(before * GOLDEN_ANGLE));
      double py =
          rawY + (before == 0 ? 0 : 6 * Math.sqrt(before) * Math.sin(before * GOLDEN_ANGLE));
      centres.add(new double[] {px, py});
      String tooltip =
          String.format(
              Locale.ROOT,
              "%d %s: quality %.2f, %s %s",
              centres.size(),
              point.label(),
              point.quality(),
              costLabel,
              Numbers.compact(point.cost()));
      circles.append(
          String.format(
              Locale.ROOT,
              "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" data-row=\"%s\" data-point=\"%d\"><title>%s</title></circle>",
              point.frontier() ? " frontier" : "",
              px,
              py,
              point.frontier() ? 5 : 4,
              Html.escape(point.id()),
              centres.size(),
              Html.escape(tooltip)));
      if (point.frontier()) {
        line.add(String.format(Locale.ROOT, "%.1f,%.1f", px, py));
      }
    }
    circles.append(numberLabels(centres, plotRight, plotBottom));
    svg.append("<polyline class=\"frontier-line\" points=\"")
        .append(String.join(" ", line))
        .append("\"/>");
    svg.append(circles).append("</svg>");
    return svg.toString();
  }

  /** Width of one digit of a point's number (10 px font), with room to spare. */
  private static final double DIGIT_PX = 6.5;

  private static final double LABEL_HEIGHT_PX = 10;

  /**
   * Every point's number ({@code <text class="point-label">}, 1 = the cheapest, in the order of
   * {@link ParetoFrontier#of}), placed where it overlaps no other number, no point and stays in the
   * plot: the first free spot of 8 directions (right, left, above, below, then the diagonals) at 7,
   * 14, 22 and 32 px, the last spot when none is free; a number set more than 10 px off its point
   * gets a leader line. {@link #key} names the numbers. leaderboard.js ({@code numberLabels})
   * places them the same way.
   */
  static String numberLabels(List<double[]> centres, int plotRight, int plotBottom) {
    StringBuilder out = new StringBuilder();
    List<double[]> boxes = new ArrayList<>();
    double[][] directions = {
      {1, 0}, {-1, 0}, {0, -1}, {0, 1}, {0.7, -0.7}, {0.7, 0.7}, {-0.7, -0.7}, {-0.7, 0.7}
    };
    double[] distances = {7, 14, 22, 32};
    for (int i = 0; i < centres.size(); i++) {
      double[] centre = centres.get(i);
      String text = String.valueOf(i + 1);
      double width = DIGIT_PX * text.length() + 2;
      double[] chosen = null;
      double chosenDistance = 0;
      double[] fallback = null;
      double fallbackDistance = 0;
      search:
      for (double distance : distances) {
        for (double[] direction : directions) {
          // the box's centre sits `distance` px out; its edge clears the point
          double cx = centre[0] + direction[0] * (distance + width / 2);
          double cy = centre[1] + direction[1] * (distance + LABEL_HEIGHT_PX / 2);
          double[] box = {
            cx - width / 2, cy - LABEL_HEIGHT_PX / 2, cx + width / 2, cy + LABEL_HEIGHT_PX / 2
          };
          if (fallback == null) {
            fallback = box;
            fallbackDistance = distance;
          }
          if (box[0] < LEFT + 1 || box[2] > plotRight - 1 || box[1] < TOP || box[3] > plotBottom) {
            continue;
          }
          if (fallback[0] < LEFT + 1
              || fallback[2] > plotRight - 1
              || fallback[1] < TOP
              || fallback[3] > plotBottom) {
            fallback = box; // the first spot inside the plot
            fallbackDistance = distance;
          }
          boolean free = true;
          for (double[] other : boxes) {
            free &=
                !(box[0] < other[2] && other[0] < box[2] && box[1] < other[3] && other[1] < box[3]);
          }
          for (double[] point : centres) {
            free &=
                !(point[0] + 5 > box[0]
                    && point[0] - 5 < box[2]
                    && point[1] + 5 > box[1]
                    && point[1] - 5 < box[3]);
          }
          if (free) {
            chosen = box;
            chosenDistance = distance;
            break search;
          }
        }
      }
      if (chosen == null) {
        chosen = fallback;
        chosenDistance = fallbackDistance;
      }
      boxes.add(chosen);
      double lx = (chosen[0] + chosen[2]) / 2;
      double ly = (chosen[1] + chosen[3]) / 2;
      if (chosenDistance > 10) {
        out.append(
            String.format(
                Locale.ROOT,
                "<line class=\"leader\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                centre[0],
                centre[1],
                lx,
                ly));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "<text class=\"point-label\" data-point=\"%d\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
              i + 1,
              lx,
              ly + 3.5,
              text));
    }
    return out.toString();
  }

  /**
   * What the chart's marks mean and the names of its numbered points: a legend (frontier points,
   * dominated points, the frontier line) and a numbered key, both HTML so no text is clipped by the
   * chart's box. Goes right after {@link #svg} of the same points.
   */
  static String key(String id, List<ParetoFrontier.Point> raw) {
    List<ParetoFrontier.Point> points = ParetoFrontier.of(raw);
    StringBuilder html = new StringBuilder();
    html.append("<div class=\"pareto-legend\" id=\"")
        .append(Html.escape(id))
        .append("-legend\"><span><span class=\"swatch frontier\"></span>on the Pareto frontier")
        .append(" (no other row is as good for less)</span>")
        .append("<span><span class=\"swatch dominated\"></span>dominated (another row is at")
        .append(" least as good for no more)</span>")
        .append("<span><span class=\"swatch line\"></span>frontier</span></div>");
    if (points.isEmpty()) {
      return html.toString();
    }
    html.append("<ol class=\"pareto-key\" id=\"").append(Html.escape(id)).append("-key\">");
    for (int i = 0; i < points.size(); i++) {
      ParetoFrontier.Point point = points.get(i);
      html.append("<li value=\"")
          .append(i + 1)
          .append("\" class=\"")
          .append(point.frontier() ? "frontier" : "dominated")
          .append("\" data-point=\"")
          .append(i + 1)
          .append("\">")
          .append(Html.escape(point.label()))
          .append("</li>");
    }
    return html.append("</ol>").toString();
  }

  /**
   * The chart's points as a table, cheapest first (then best, then label): the exact values the
   * chart places, and which are on the frontier.
   */
  static String table(
      String id, String costLabel, String qualityLabel, List<ParetoFrontier.Point> raw) {
    List<ParetoFrontier.Point> points = new ArrayList<>(ParetoFrontier.of(raw));
    points.sort(
        java.util.Comparator.comparingDouble(ParetoFrontier.Point::cost)
            .thenComparing(ParetoFrontier.Point::quality, java.util.Comparator.reverseOrder())
            .thenComparing(ParetoFrontier.Point::label));
    StringBuilder html = new StringBuilder();
    html.append("<table class=\"pareto-table\" id=\"")
        .append(Html.escape(id))
        .append("\"><thead><tr><th>system</th><th>")
        .append(Html.escape(costLabel))
        .append("</th><th>")
        .append(Html.escape(qualityLabel))
        .append("</th><th>frontier</th></tr></thead><tbody>");
    for (ParetoFrontier.Point point : points) {
      html.append("<tr><td>")
          .append(Html.escape(point.label()))
          .append("</td><td class=\"num\">")
          .append(Numbers.compact(point.cost()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%.2f", point.quality()))
          .append("</td><td>")
          .append(point.frontier() ? "✓" : "")
          .append("</td></tr>");
    }
    return html.append("</tbody></table>").toString();
  }

  /** A scale from values to [0, 1] with its tick values. */
  private record Axis(double low, double high, boolean log, List<Double> ticks) {
    static Axis linear(double min, double max) {
      double span = max - min;
      double pad = span == 0 ? Math.max(1, Math.abs(min) * 0.05) : span * 0.08;
      double step = niceStep((span + 2 * pad) / 5);
      double low = Math.floor((min - pad) / step) * step;
      double high = Math.ceil((max + pad) / step) * step;
      List<Double> ticks = new ArrayList<>();
      for (double tick = low; tick <= high + step / 2; tick += step) {
        ticks.add(Math.round(tick / step) * step);
      }
      return new Axis(low, high, false, ticks);
    }

    static Axis log(double min, double max) {
      double low = min / 1.5;
      double high = max * 1.5;
      List<Double> ticks = new ArrayList<>();
      List<Double> decades = new ArrayList<>();
      for (int k = (int) Math.floor(Math.log10(low)); k <= (int) Math.ceil(Math.log10(high)); k++) {
        for (int m : new int[] {1, 2, 5}) {
          double tick = m * Math.pow(10, k);
          if (tick >= low && tick <= high) {
            ticks.add(tick);
            if (m == 1) {
              decades.add(tick);
            }
          }
        }
      }
      return new Axis(low, high, true, ticks.size() > 8 && decades.size() >= 2 ? decades : ticks);
    }

    double fraction(double value) {
      return log
          ? (Math.log10(value) - Math.log10(low)) / (Math.log10(high) - Math.log10(low))
          : (value - low) / (high - low);
    }

    private static double niceStep(double raw) {
      double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
      double normalized = raw / magnitude;
      double nice = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
      return nice * magnitude;
    }
  }
}
