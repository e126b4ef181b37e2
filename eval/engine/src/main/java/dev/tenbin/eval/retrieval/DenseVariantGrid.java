package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.index.v1.Quantization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The cross product of dense efficiency choices, asked for as a job's {@code variants: {truncate:
 * [0, 256], quantization: [none, int8, binary], rescore: [false, true], index: [exact, hnsw]}}.
 *
 * <p>Axes, each a non-empty list without repeats, defaulting to the one value in brackets when left
 * out: {@code chunking} ({@code none}, {@code firstpW}, {@code maxpW}, {@code maxpWsS}) [none],
 * {@code truncate} (0 = all dimensions, or 1..65536) [0], {@code quantization} ({@code none},
 * {@code int8}, {@code binary}) [none], {@code rescore} ({@code false}, {@code true}) [false],
 * {@code index} ({@code exact}, {@code hnsw}) [exact].
 *
 * <p>{@link #variants()} lists every combination in that axis order (chunking outermost, rescore
 * innermost), each axis in its listed order, under {@link DenseVariant#named canonical names}.
 * Rescoring applies to quantized first stages only: a combination of {@code rescore: true} with
 * {@code quantization: none} is left out (the float variant is listed once, with {@code rescore:
 * false}); a grid whose rescore values are all true with only {@code none} quantization is an error
 * naming {@code rescore}.
 */
public record DenseVariantGrid(
    List<Chunking> chunkings,
    List<Integer> truncates,
    List<Quantization> quantizations,
    List<Boolean> rescores,
    List<Boolean> approximates) {
  /** The axes, in expansion order. */
  public static final List<String> AXES =
      List.of("chunking", "truncate", "quantization", "rescore", "index");

  public DenseVariantGrid {
    chunkings = List.copyOf(chunkings);
    truncates = List.copyOf(truncates);
    quantizations = List.copyOf(quantizations);
    rescores = List.copyOf(rescores);
    approximates = List.copyOf(approximates);
  }

  /**
   * The grid of axis name → values as written; {@code field} prefixes the fields errors name
   * ({@code retrievers[1].variants.quantization[2]}).
   *
   * @throws InvalidInputException naming the axis or value that is unknown, empty, repeated or out
   *     of range
   */
  public static DenseVariantGrid parse(Map<String, List<String>> axes, String field) {
    for (String axis : axes.keySet()) {
      if (!AXES.contains(axis)) {
        throw new InvalidInputException(
            field + "." + axis, "unknown variants axis '" + axis + "'; expected one of " + AXES);
      }
    }
    List<Chunking> chunkings =
        axis(axes, field, "chunking", "none", v -> v.equals("none") ? Chunking.TRUNCATE : chunk(v));
    List<Integer> truncates = axis(axes, field, "truncate", "0", DenseVariantGrid::truncate);
    List<Quantization> quantizations =
        axis(axes, field, "quantization", "none", DenseVariantGrid::quantization);
    List<Boolean> rescores =
        axis(axes, field, "rescore", "false", v -> bool(v, "false", "true", "true or false"));
    List<Boolean> approximates =
        axis(axes, field, "index", "exact", v -> bool(v, "exact", "hnsw", "exact or hnsw"));
    if (!rescores.contains(false)
        && !quantizations.stream().anyMatch(DenseVariantGrid::quantized)) {
      throw new InvalidInputException(
          field + ".rescore",
          "rescore needs a quantization (int8 or binary); this grid quantizes with none only");
    }
    return new DenseVariantGrid(chunkings, truncates, quantizations, rescores, approximates);
  }

  /** Every combination, named canonically, in the order of the class comment. */
  public List<DenseVariant> variants() {
    List<DenseVariant> variants = new ArrayList<>();
    for (Chunking chunking : chunkings)
      for (int truncate : truncates)
        for (boolean approximate : approximates)
          for (Quantization quantization : quantizations)
            for (boolean rescore : rescores) {
              if (!rescore || quantized(quantization)) {
                variants.add(
                    DenseVariant.named(chunking, truncate, quantization, rescore, approximate));
              }
            }
    return variants;
  }

  /** The canonical names of {@link #variants()}. */
  public List<String> names() {
    return variants().stream().map(DenseVariant::name).toList();
  }

  private static boolean quantized(Quantization quantization) {
    return quantization != Quantization.QUANTIZATION_NONE;
  }

  private interface Value<T> {
    T parse(String text);
  }

  private static <T> List<T> axis(
      Map<String, List<String>> axes, String field, String axis, String fallback, Value<T> value) {
    List<String> texts = axes.getOrDefault(axis, List.of(fallback));
    if (texts.isEmpty()) {
      throw new InvalidInputException(field + "." + axis, axis + " needs at least one value");
    }
    Map<T, String> seen = new LinkedHashMap<>();
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i) == null ? "" : texts.get(i).trim().toLowerCase(Locale.ROOT);
      T parsed;
      try {
        parsed = value.parse(text);
      } catch (InvalidInputException e) {
        throw new InvalidInputException(field + "." + axis + "[" + i + "]", e.getMessage());
      }
      if (seen.containsKey(parsed)) {
        throw new InvalidInputException(
            field + "." + axis + "[" + i + "]",
            "'" + text + "' repeats " + axis + " '" + seen.get(parsed) + "'");
      }
      seen.put(parsed, text);
    }
    return List.copyOf(seen.keySet());
  }

  private static Chunking chunk(String text) {
    Chunking chunking = Chunking.ofVariant(text);
    if (chunking.truncates() || !Chunking.efficiency(text).equals("base")) {
      throw new InvalidInputException(
          "chunking", "unknown chunking '" + text + "'; expected none, firstpW, maxpW or maxpWsS");
    }
    return chunking;
  }

  private static int truncate(String text) {
    if (!text.matches("\\d{1,6}") || Integer.parseInt(text) > 65_536) {
      throw new InvalidInputException(
          "truncate",
          "truncate '" + text + "' must be 0 (all dimensions) or a whole number within 1..65536");
    }
    return Integer.parseInt(text);
  }

  private static Quantization quantization(String text) {
    return switch (text) {
      case "none" -> Quantization.QUANTIZATION_NONE;
      case "int8" -> Quantization.QUANTIZATION_INT8;
      case "binary" -> Quantization.QUANTIZATION_BINARY;
      default ->
          throw new InvalidInputException(
              "quantization", "unknown quantization '" + text + "'; expected none, int8 or binary");
    };
  }

  private static boolean bool(String text, String no, String yes, String expected) {
    if (!Set.of(no, yes).contains(text)) {
      throw new InvalidInputException("value", "'" + text + "': expected " + expected);
    }
    return text.equals(yes);
  }
}
