package dev.tenbin.drill;

/** Reads values out of the Prometheus text format that a service's {@code /metrics} serves. */
final class PrometheusText {
  private PrometheusText() {}

  /**
   * The sum of the samples of metric {@code name} whose labels contain {@code label} (e.g. {@code
   * area="heap"}; empty for any); 0 when there are none.
   */
  static double sum(String text, String name, String label) {
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(name)) {
        continue;
      }
      int labelsStart = line.indexOf('{');
      int nameEnd = labelsStart >= 0 ? labelsStart : line.indexOf(' ');
      if (nameEnd != name.length()) {
        continue; // another metric whose name starts with this one
      }
      int labelsEnd = labelsStart >= 0 ? line.lastIndexOf('}') : nameEnd;
      if (!label.isEmpty()
          && (labelsStart < 0 || !line.substring(labelsStart, labelsEnd + 1).contains(label))) {
        continue;
      }
      String[] rest = line.substring(labelsEnd + 1).trim().split("\\s+");
      try {
        sum += Double.parseDouble(rest[0]);
      } catch (NumberFormatException e) {
        // NaN or a malformed line: not counted.
      }
    }
    return sum;
  }
}
