package dev.tenbin.eval.browse;

import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A page's URL query parameters, checked: each error is an {@link InvalidInputException} whose
 * field is the parameter's name. Empty values (an "any" choice of a form) count as absent.
 */
final class Parameters {
  private final Map<String, List<String>> values;

  private Parameters(Map<String, List<String>> values) {
    this.values = values;
  }

  /**
   * The parameters of {@code query} (null: none), every name one of {@code known}.
   *
   * @throws InvalidInputException naming the first unknown parameter
   */
  static Parameters of(Map<String, List<String>> query, Set<String> known) {
    Map<String, List<String>> values = new LinkedHashMap<>();
    if (query != null) {
      for (String name : new TreeSet<>(query.keySet())) {
        if (!known.contains(name)) {
          throw new InvalidInputException(
              name,
              "unknown parameter " + name + "; known: " + String.join(", ", new TreeSet<>(known)));
        }
        List<String> present = new ArrayList<>();
        for (String value : query.get(name) == null ? List.<String>of() : query.get(name)) {
          if (value != null && !value.isBlank()) {
            present.add(value.strip());
          }
        }
        if (!present.isEmpty()) {
          values.put(name, List.copyOf(present));
        }
      }
    }
    return new Parameters(values);
  }

  /** Every value of {@code name}, in the order given; empty when absent. */
  List<String> all(String name) {
    return values.getOrDefault(name, List.of());
  }

  /**
   * The one value of {@code name}, or null when absent.
   *
   * @throws InvalidInputException when it is given more than once
   */
  String single(String name) {
    List<String> given = all(name);
    if (given.size() > 1) {
      throw new InvalidInputException(
          name, name + " is given " + given.size() + " times; give it once");
    }
    return given.isEmpty() ? null : given.getFirst();
  }

  /**
   * The one value of {@code name}, which must be one of {@code allowed}; {@code fallback} when
   * absent.
   */
  String choice(String name, List<String> allowed, String fallback) {
    String value = single(name);
    if (value == null) {
      return fallback;
    }
    if (!allowed.contains(value)) {
      throw new InvalidInputException(
          name, name + " must be one of " + String.join(", ", allowed) + ", not " + quoted(value));
    }
    return value;
  }

  /**
   * Every value of {@code name}, each one of {@code known} (what the stored cells hold).
   *
   * @throws InvalidInputException naming the parameter and the first value no cell has
   */
  List<String> among(String name, Set<String> known) {
    for (String value : all(name)) {
      if (!known.contains(value)) {
        throw new InvalidInputException(
            name, "no stored cell has " + name + " " + quoted(value) + known(known));
      }
    }
    return all(name);
  }

  private static String known(Set<String> known) {
    if (known.isEmpty()) {
      return " (no cells are stored)";
    }
    List<String> sorted = new ArrayList<>(new TreeSet<>(known));
    return "; known: "
        + String.join(", ", sorted.subList(0, Math.min(20, sorted.size())))
        + (sorted.size() > 20 ? ", …" : "");
  }

  /** The parameters as a query string with {@code name} set to {@code value} (null: removed). */
  String with(String name, String value) {
    Map<String, List<String>> changed = new LinkedHashMap<>(values);
    if (value == null) {
      changed.remove(name);
    } else {
      changed.put(name, List.of(value));
    }
    StringBuilder query = new StringBuilder();
    changed.forEach(
        (key, list) ->
            list.forEach(
                v ->
                    query
                        .append(query.isEmpty() ? "?" : "&")
                        .append(Pages.urlEncode(key))
                        .append('=')
                        .append(Pages.urlEncode(v))));
    return query.isEmpty() ? "?" : query.toString();
  }

  static String quoted(String value) {
    String shown = value.length() > 80 ? value.substring(0, 80) + "…" : value;
    return "'" + shown + "'";
  }
}
