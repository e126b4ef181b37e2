package dev.tenbin.bench.index;

import dev.tenbin.bench.index.IndexScalingBenchmark.HnswCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.HnswPoint;
import dev.tenbin.bench.index.IndexScalingBenchmark.SizeResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A log-log SVG of query latency against collection size, one line per search method, from {@link
 * IndexScalingBenchmark} results. HNSW lines use the smallest beam reaching recall@10 {@value
 * IndexScalingBenchmark#TARGET_RECALL} at each size (sizes where none does, or no graph was built,
 * are left out of that line).
 */
public final class ScalingPlot {
  private static final int WIDTH = 720;
  private static final int HEIGHT = 460;
  private static final int LEFT = 70;
  private static final int RIGHT = 200;
  private static final int TOP = 30;
  private static final int BOTTOM = 50;
  private static final String[] COLOURS = {
    "#1f77b4", "#aec7e8", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"
  };

  private ScalingPlot() {}

  /** The SVG document. */
  public static String svg(List<SizeResult> results, String title) {
    Map<String, List<double[]>> series = series(results);
    double minX = Double.MAX_VALUE;
    double maxX = 0;
    double minY = Double.MAX_VALUE;
    double maxY = 0;
    for (List<double[]> points : series.values()) {
      for (double[] p : points) {
        minX = Math.min(minX, p[0]);
        maxX = Math.max(maxX, p[0]);
        minY = Math.min(minY, p[1]);
        maxY = Math.max(maxY, p[1]);
      }
    }
    if (minX > maxX) {
      minX = 1;
      maxX = 10;
      minY = 1;
      maxY = 10;
    }
    double x0 = Math.floor(Math.log10(minX));
    double x1 = Math.max(x0 + 1, Math.ceil(Math.log10(maxX)));
    double y0 = Math.floor(Math.log10(minY));
    double y1 = Math.max(y0 + 1, Math.ceil(Math.log10(maxY)));
    Axes axes = new Axes(x0, x1, y0, y1);
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT));
    out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    out.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"18\" font-size=\"14\">%s</text>%n",
            LEFT,
            escape(title)));
    for (double e = x0; e <= x1; e++) {
      double x = axes.x(Math.pow(10, e));
      out.append(line(x, TOP, x, HEIGHT - BOTTOM, "#ddd"));
      out.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              x,
              HEIGHT - BOTTOM + 16,
              power(e)));
    }
    for (double e = y0; e <= y1; e++) {
      double y = axes.y(Math.pow(10, e));
      out.append(line(LEFT, y, WIDTH - RIGHT, y, "#ddd"));
      out.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT - 6,
              y + 4,
              power(e)));
    }
    out.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">vectors in the collection</text>%n",
            (LEFT + WIDTH - RIGHT) / 2,
            HEIGHT - 12));
    out.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">ms per"
                + " query</text>%n",
            (TOP + HEIGHT - BOTTOM) / 2));
    int colour = 0;
    int legendY = TOP + 10;
    for (Map.Entry<String, List<double[]>> entry : series.entrySet()) {
      String stroke = COLOURS[colour++ % COLOURS.length];
      StringBuilder path = new StringBuilder();
      for (double[] p : entry.getValue()) {
        path.append(path.isEmpty() ? "M" : " L")
            .append(String.format(Locale.ROOT, "%.1f %.1f", axes.x(p[0]), axes.y(p[1])));
        out.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                axes.x(p[0]),
                axes.y(p[1]),
                stroke));
      }
      if (!path.isEmpty()) {
        out.append(
            String.format(
                Locale.ROOT,
                "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                path,
                stroke));
      }
      out.append(line(WIDTH - RIGHT + 12, legendY - 4, WIDTH - RIGHT + 32, legendY - 4, stroke));
      out.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\">%s</text>%n",
              WIDTH - RIGHT + 38,
              legendY,
              escape(entry.getKey())));
      legendY += 18;
    }
    out.append("</svg>\n");
    return out.toString();
  }

  /** Method name → (size, ms per query) points, in the order they are drawn. */
  static Map<String, List<double[]>> series(List<SizeResult> results) {
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    add(series, "float scan", results, SizeResult::floatMillisPerQuery);
    add(series, "float scan, batched", results, SizeResult::floatBatchMillisPerQuery);
    add(series, "int8 scan", results, SizeResult::int8MillisPerQuery);
    add(series, "binary scan", results, SizeResult::binaryMillisPerQuery);
    for (String vectors : List.of("float", "int8", "binary")) {
      List<double[]> points = new ArrayList<>();
      for (SizeResult r : results) {
        for (HnswCurve curve : r.hnsw()) {
          HnswPoint point = curve.vectors().equals(vectors) ? curve.firstAtTargetRecall() : null;
          if (point != null) {
            points.add(new double[] {r.size(), point.millisPerQuery()});
          }
        }
      }
      series.put("HNSW " + vectors + ", R@10 \u2265 0.95", points);
    }
    return series;
  }

  private static void add(
      Map<String, List<double[]>> series,
      String name,
      List<SizeResult> results,
      ToDoubleFunction<SizeResult> millis) {
    List<double[]> points = new ArrayList<>();
    for (SizeResult r : results) {
      points.add(new double[] {r.size(), millis.applyAsDouble(r)});
    }
    series.put(name, points);
  }

  private record Axes(double x0, double x1, double y0, double y1) {
    double x(double value) {
      return LEFT + (Math.log10(value) - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    }

    double y(double value) {
      return HEIGHT - BOTTOM - (Math.log10(value) - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM);
    }
  }

  private static String line(double x1, double y1, double x2, double y2, String stroke) {
    return String.format(
        Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
        x1,
        y1,
        x2,
        y2,
        stroke);
  }

  private static String power(double exponent) {
    return "10<tspan dy=\"-6\" font-size=\"9\">" + (long) exponent + "</tspan>";
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
