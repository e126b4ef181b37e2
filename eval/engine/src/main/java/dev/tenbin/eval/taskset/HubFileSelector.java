package dev.tenbin.eval.taskset;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Picks the files of one config and split among a hub dataset repository's files. For config {@code
 * C} and split {@code S} the first of these patterns that matches any file wins, and all its
 * matches are used, sorted (shards):
 *
 * <ol>
 *   <li>{@code C/S-*.parquet} (the datasets-library layout, e.g. {@code
 *       corpus/train-00000-of-00001.parquet})
 *   <li>{@code C/S.parquet}
 *   <li>{@code data/C/S-*.parquet}
 *   <li>{@code C/S.jsonl}
 *   <li>{@code C/S.jsonl.gz}
 *   <li>{@code C/S-*.jsonl}
 *   <li>{@code C.jsonl}
 *   <li>qrels and spans only: {@code C/S.tsv}, then {@code C.tsv}
 * </ol>
 *
 * <p>{@code *} matches within one path segment. A {@code format} of {@code parquet} or {@code
 * jsonl} keeps only the patterns of that format (qrels and spans {@code .tsv} files stay allowed).
 */
final class HubFileSelector {
  private HubFileSelector() {}

  /** The patterns tried for {@code role} in {@code config} and {@code split}, in order. */
  static List<String> patterns(String role, String config, String split, String format) {
    List<String> patterns = new ArrayList<>();
    if (!format.equals("jsonl")) {
      patterns.addAll(
          List.of(
              config + "/" + split + "-*.parquet",
              config + "/" + split + ".parquet",
              "data/" + config + "/" + split + "-*.parquet"));
    }
    if (!format.equals("parquet")) {
      patterns.addAll(
          List.of(
              config + "/" + split + ".jsonl",
              config + "/" + split + ".jsonl.gz",
              config + "/" + split + "-*.jsonl",
              config + ".jsonl"));
    }
    if (role.equals("qrels") || role.equals("spans")) {
      patterns.addAll(List.of(config + "/" + split + ".tsv", config + ".tsv"));
    }
    return patterns;
  }

  /** The files of the first matching pattern, sorted; empty when no pattern matches. */
  static List<String> select(
      List<String> files, String role, String config, String split, String format) {
    for (String pattern : patterns(role, config, split, format)) {
      Pattern regex = glob(pattern);
      List<String> matches =
          files.stream().filter(f -> regex.matcher(f).matches()).sorted().toList();
      if (!matches.isEmpty()) {
        return matches;
      }
    }
    return List.of();
  }

  private static Pattern glob(String pattern) {
    StringBuilder regex = new StringBuilder();
    int start = 0;
    for (int star = pattern.indexOf('*'); star >= 0; star = pattern.indexOf('*', start)) {
      regex.append(Pattern.quote(pattern.substring(start, star))).append("[^/]*");
      start = star + 1;
    }
    regex.append(Pattern.quote(pattern.substring(start)));
    return Pattern.compile(regex.toString());
  }
}
