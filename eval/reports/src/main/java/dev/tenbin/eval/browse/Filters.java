package dev.tenbin.eval.browse;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Which stored cells the all-jobs leaderboard counts. Each list filter keeps the cells whose value
 * is any of those given (none given: every cell); the filters combine with AND.
 *
 * @param benchmarks benchmark names
 * @param tasks task names or ids ("benchmark/task")
 * @param languages ISO 639-1 codes
 * @param families system families ("bm25", "dense", ...)
 * @param models model names ("bm25" for BM25)
 * @param variants variant names ("base", "int8", ...)
 * @param nano "yes": only Nano-sets (a benchmark or dataset name starting with "Nano"), "no": none
 *     of them, null: both
 * @param from first day (UTC) a counted cell finished on, or null
 * @param to last day (UTC), or null
 */
record Filters(
    List<String> benchmarks,
    List<String> tasks,
    List<String> languages,
    List<String> families,
    List<String> models,
    List<String> variants,
    String nano,
    LocalDate from,
    LocalDate to) {

  static final Set<String> NAMES =
      Set.of("benchmark", "task", "language", "family", "model", "variant", "nano", "from", "to");

  /**
   * The filters {@code parameters} give, each value checked against what {@code cells} hold.
   *
   * @throws InvalidInputException naming the parameter of a value no cell has, a date that is not
   *     YYYY-MM-DD, or a range that ends before it starts
   */
  static Filters of(Parameters parameters, List<CellRecord> cells) {
    LocalDate from = date(parameters, "from");
    LocalDate to = date(parameters, "to");
    if (from != null && to != null && to.isBefore(from)) {
      throw new InvalidInputException("to", "to " + to + " is before from " + from);
    }
    return new Filters(
        parameters.among("benchmark", known(cells, k -> k.task().benchmark())),
        parameters.among("task", taskNames(cells)),
        parameters.among("language", known(cells, k -> k.task().language())),
        parameters.among("family", known(cells, k -> k.system().family())),
        parameters.among("model", known(cells, k -> k.system().model())),
        parameters.among("variant", known(cells, CellKey::variant)),
        parameters.choice("nano", List.of("yes", "no"), null),
        from,
        to);
  }

  private static LocalDate date(Parameters parameters, String name) {
    String text = parameters.single(name);
    if (text == null) {
      return null;
    }
    try {
      return LocalDate.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidInputException(
          name, name + " must be a date YYYY-MM-DD, not " + Parameters.quoted(text));
    }
  }

  /** The distinct values of {@code field} over {@code cells}, sorted. */
  static Set<String> known(List<CellRecord> cells, Function<CellKey, String> field) {
    Set<String> values = new TreeSet<>();
    for (CellRecord cell : cells) {
      String value = field.apply(cell.key());
      if (value != null && !value.isEmpty()) {
        values.add(value);
      }
    }
    return values;
  }

  private static Set<String> taskNames(List<CellRecord> cells) {
    Set<String> names = known(cells, k -> k.task().task());
    names.addAll(known(cells, k -> k.task().id()));
    return names;
  }

  /** Whether {@code cell} passes every filter. */
  boolean includes(CellRecord cell) {
    CellKey key = cell.key();
    return matches(benchmarks, key.task().benchmark())
        && (tasks.isEmpty() || tasks.contains(key.task().task()) || tasks.contains(key.task().id()))
        && matches(languages, key.task().language())
        && matches(families, key.system().family())
        && matches(models, key.system().model())
        && matches(variants, key.variant())
        && (nano == null || nano.equals("yes") == isNano(cell))
        && inRange(cell);
  }

  /** Whether the cell's task is a Nano-set: its benchmark or dataset name starts with "Nano". */
  static boolean isNano(CellRecord cell) {
    return cell.key().task().benchmark().startsWith("Nano")
        || cell.key().task().dataset().startsWith("Nano");
  }

  private boolean inRange(CellRecord cell) {
    if (from == null && to == null) {
      return true;
    }
    LocalDate day = finishedOn(cell);
    return day != null && (from == null || !day.isBefore(from)) && (to == null || !day.isAfter(to));
  }

  /** The UTC day a cell finished on; null when it records none or an unreadable one. */
  static LocalDate finishedOn(CellRecord cell) {
    if (cell.finishedAt() == null) {
      return null;
    }
    try {
      return Instant.parse(cell.finishedAt()).atZone(ZoneOffset.UTC).toLocalDate();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static boolean matches(List<String> wanted, String value) {
    return wanted.isEmpty() || wanted.contains(value);
  }
}
