package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import java.util.Locale;

/**
 * What an hour of the machine a cell ran on costs, for the leaderboard's cost columns (a job spec's
 * {@code price}, {@code tenbin report --price}): a cell that encoded on CUDA is priced by the GPU
 * hour, any other by the CPU hour. The reports price a row's measured time with it.
 *
 * @param cpuHour price of an hour of a CPU-only machine, in any currency unit
 * @param gpuHour price of an hour of a GPU machine, in the same unit
 */
public record Price(double cpuHour, double gpuHour) {
  public Price {
    if (!(cpuHour >= 0) || !(gpuHour >= 0) || Double.isInfinite(cpuHour + gpuHour)) {
      throw new IllegalArgumentException("prices must be finite and 0 or more");
    }
  }

  /**
   * Parses {@code cpu_hour=0.05,gpu_hour=2.5} (either may be left out: it is then 0, and rows it
   * would price show no cost).
   *
   * @param field the option named in an error
   */
  public static Price parse(String field, String text) {
    double cpu = Double.NaN;
    double gpu = Double.NaN;
    for (String part : text.split(",")) {
      String[] pair = part.trim().split("=", 2);
      if (pair.length != 2) {
        throw invalid(field, text);
      }
      double value;
      try {
        value = Double.parseDouble(pair[1].trim());
      } catch (NumberFormatException e) {
        throw invalid(field, text);
      }
      if (!(value >= 0) || Double.isInfinite(value)) {
        throw invalid(field, text);
      }
      switch (pair[0].trim().toLowerCase(Locale.ROOT)) {
        case "cpu_hour" -> cpu = value;
        case "gpu_hour" -> gpu = value;
        default -> throw invalid(field, text);
      }
    }
    if (Double.isNaN(cpu) && Double.isNaN(gpu)) {
      throw invalid(field, text);
    }
    return new Price(Double.isNaN(cpu) ? 0 : cpu, Double.isNaN(gpu) ? 0 : gpu);
  }

  private static InvalidInputException invalid(String field, String text) {
    return new InvalidInputException(
        field,
        field
            + " must be cpu_hour=PRICE,gpu_hour=PRICE (non-negative numbers, either may be left"
            + " out), got '"
            + text
            + "'");
  }

  /**
   * A job spec's {@code price}: {@code {cpu_hour: 0.10, gpu_hour: 2.50}} (either may be left out)
   * or the same as one text, {@code cpu_hour=0.10,gpu_hour=2.50}.
   */
  public static Price fromYaml(com.fasterxml.jackson.databind.JsonNode node) {
    if (node.isTextual()) {
      return parse("price", node.asText());
    }
    if (!node.isObject()) {
      throw new InvalidInputException(
          "price", "price must be {cpu_hour: PRICE, gpu_hour: PRICE} or cpu_hour=P,gpu_hour=P");
    }
    java.util.List<String> parts = new java.util.ArrayList<>();
    node.fields()
        .forEachRemaining(field -> parts.add(field.getKey() + "=" + field.getValue().asText()));
    return parse("price", String.join(",", parts));
  }

  /**
   * The price of a job folder's {@code job.yaml}, or null when it names none (or is unreadable).
   */
  public static Price ofJobFolder(java.nio.file.Path jobDirectory) {
    java.nio.file.Path spec = jobDirectory.resolve("job.yaml");
    if (!java.nio.file.Files.isRegularFile(spec)) {
      return null;
    }
    try {
      com.fasterxml.jackson.databind.JsonNode root =
          new com.fasterxml.jackson.databind.ObjectMapper(
                  new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
              .readTree(spec.toFile());
      return root == null || root.path("price").isMissingNode()
          ? null
          : fromYaml(root.path("price"));
    } catch (java.io.IOException | InvalidInputException e) {
      return null;
    }
  }
}
