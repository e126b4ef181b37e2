package dev.tenbin.eval.leaderboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.aggregate.OfficialCorrelation;
import dev.tenbin.eval.aggregate.PairedComparisons;
import dev.tenbin.eval.aggregate.RowKey;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.Map;

/**
 * A leaderboard as JSON: the {@code --format json} contract and the data the HTML page's script
 * renders. Scores are on the 0..100 scale; absent values are null. {@code interval_source} says
 * which intervals the report shows: "tasks" (micro_interval, macro_interval and swap_with_next),
 * "queries" (1 to 4 tasks: query_interval and swap_with_next) or "none" (all of them null); {@code
 * statistical_group} is the row's group by those intervals; a ranked row's {@code rank_interval}
 * ([best, worst]) is the 95% interval of its rank over the draws that give swap_with_next and
 * {@code tied_for_first} whether it includes 1 (both null without that bootstrap), the root's
 * {@code tied_for_first} lists those rows' ids in rank order (null without rank intervals) and
 * {@code rank_interval_note} says how they were made; a ranked row's {@code bt_strength} and {@code
 * bt_interval} are its Bradley–Terry log-strength from per-query wins and its 95% interval,
 * described by the root's {@code bradley_terry} (all null without a fit); {@code paired_tests}
 * holds the paired tests of every task (null when none were run, as with one row per task: {@code
 * paired_tests_note} says why). A pair's {@code randomization_p_at_limit} is true when its {@code
 * randomization_p} is the sampled test's floor 1/(permutations + 1), no draw reaching the observed
 * difference (the true p is at most that); {@code identical} marks a pair whose per-query
 * differences are all 0, left out of the task's {@code minimum_detectable_effect} and counted in
 * its {@code identical_pairs}. A row's {@code latency_us} and {@code latency_p99_us} are its
 * single-query latency; {@code concurrent_in_flight} (with {@code concurrent_in_flight_min}, the
 * same unless the row's cells differ), {@code concurrent_latency_p50_us}, {@code
 * concurrent_latency_p99_us} and {@code concurrent_queries_per_second} its latency with that many
 * queries in flight (null: not measured).
 */
final class LeaderboardJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LeaderboardJson() {}

  static ObjectNode tree(Leaderboard board) {
    ObjectNode root = JSON.createObjectNode();
    root.put("metric", board.metric());
    root.put("aggregate", board.aggregate().label());
    ObjectNode scope = root.putObject("scope");
    scope.put("benchmark", board.options().scope().benchmark());
    scope.put("language", board.options().scope().language());
    scope.put("domain", board.options().scope().domain());
    scope.put("mode", board.options().scope().mode());
    root.put("seed", board.options().seed());
    root.put("bootstrap_draws", board.options().bootstrapDraws());
    root.put("interval_source", board.intervalSource().name().toLowerCase(java.util.Locale.ROOT));
    root.put("min_tasks_for_task_bootstrap", Leaderboard.MIN_TASKS_FOR_TASK_BOOTSTRAP);
    root.put("interval_note", ReportText.intervalNote(board));
    root.put("rank_interval_note", ReportText.rankNote(board));
    var tied = board.tiedForFirst();
    if (tied == null) {
      root.putNull("tied_for_first");
    } else {
      ArrayNode tiedIds = root.putArray("tied_for_first");
      tied.forEach(row -> tiedIds.add(row.key().id()));
    }
    preference(root, board);
    if (board.options().price() == null) {
      root.putNull("price");
    } else {
      ObjectNode price = root.putObject("price");
      price.put("cpu_hour", board.options().price().cpuHour());
      price.put("gpu_hour", board.options().price().gpuHour());
    }
    ArrayNode benchmarks = root.putArray("benchmarks");
    board.benchmarks().forEach(benchmarks::add);
    ArrayNode tasks = root.putArray("tasks");
    for (TaskRef task : board.tasks()) {
      ObjectNode node = tasks.addObject();
      node.put("id", task.id());
      node.put("benchmark", task.benchmark());
      node.put("dataset", task.dataset());
      node.put("task", task.task());
      node.put("language", task.language());
      node.put("domain", task.domain());
      Double queryWords = board.matrix().taskFact(task, "avg_query_tokens");
      Double documentWords = board.matrix().taskFact(task, "avg_document_tokens");
      node.put("avg_query_tokens", queryWords);
      node.put("avg_document_tokens", documentWords);
      node.put("query_length", LengthBuckets.query(queryWords));
      node.put("document_length", LengthBuckets.document(documentWords));
    }
    ArrayNode rows = root.putArray("rows");
    board.rows().forEach(row -> row(rows.addObject(), row, board));
    if (board.correlation() != null) {
      correlation(root.putObject("correlation"), board.correlation());
    } else {
      root.putNull("correlation");
    }
    ArrayNode parity = root.putArray("parity");
    for (var c : board.options().parity()) {
      ObjectNode node = parity.addObject();
      node.put("file", c.file());
      node.put("dataset", c.dataset());
      node.put("a", c.a());
      node.put("b", c.b());
      node.put("queries", c.queries());
      node.put("delta", c.delta());
      node.putArray("delta_interval").add(c.deltaLow()).add(c.deltaHigh());
      node.put("randomization_p", c.randomizationP());
      node.put("top10_changed_as_set", c.top10ChangedAsSet());
      node.put("top10_changed_in_order", c.top10ChangedInOrder());
      node.put("document_min_cosine", c.documentMinCosine());
      node.put("document_mean_cosine", c.documentMeanCosine());
      node.put("identical", c.identical());
    }
    measures(root, board);
    ArrayNode fidelity = root.putArray("nano_fidelity");
    for (var record : board.options().nanoFidelity()) {
      if (board.tasks().stream().noneMatch(t -> t.id().equals(record.task()))) {
        continue;
      }
      ObjectNode node = fidelity.addObject();
      node.put("task", record.task());
      node.put("full_task", record.fullTask());
      node.put("metric", record.metric());
      node.put("kendall_tau_b", record.kendallTau());
      node.put("pairs_ordered_the_same", record.pairsAgreeing());
      node.put("pairs", record.pairs());
      node.put("top_k", record.topK());
      node.put("top_k_shared", record.topKShared());
      node.put("systems", record.systems());
      node.put("systems_differing", record.systemsDiffering());
      node.put("largest_abs_delta", record.largestDelta());
    }
    if (board.paired() != null && board.paired().hasPairs()) {
      paired(root.putObject("paired_tests"), board.paired());
    } else {
      root.putNull("paired_tests");
      if (board.paired() != null) {
        root.put("paired_tests_note", PairedTables.noPairs(board.paired()));
      }
    }
    return root;
  }

  /**
   * {@code measures}: the chosen measures ({@link dev.tenbin.eval.aggregate.ChosenMeasures}) per
   * row and task, each with its tie-aware form; null when none were chosen.
   */
  private static void measures(ObjectNode root, Leaderboard board) {
    var chosen = board.options().measures();
    if (chosen == null) {
      root.putNull("measures");
      return;
    }
    ObjectNode node = root.putObject("measures");
    chosen.specs().forEach(node.putArray("trec_eval")::add);
    chosen.names().forEach(node.putArray("names")::add);
    node.put("order", "stored: score descending, document id ascending on ties");
    node.put("unmeasured_cells", chosen.unmeasured());
    ArrayNode rows = node.putArray("rows");
    for (var row : board.rows()) {
      var byTask = chosen.values().get(row.key());
      if (byTask == null) {
        continue;
      }
      ObjectNode out = rows.addObject();
      out.put("system", row.key().system().name());
      out.put("variant", row.key().variant());
      out.put("mode", row.key().mode());
      ObjectNode tasks = out.putObject("tasks");
      for (TaskRef task : board.tasks()) {
        var values = byTask.get(task);
        if (values == null) {
          continue;
        }
        ObjectNode taskNode = tasks.putObject(task.id());
        values.forEach(
            (name, value) -> {
              ObjectNode v = taskNode.putObject(name);
              v.put("value", value.value());
              v.put("expected", value.tieAware().expected());
              v.put("min", value.tieAware().min());
              v.put("max", value.tieAware().max());
            });
      }
    }
  }

  /**
   * The paired tests: settings, then per task its rows (by task score, with interval and group),
   * queries, minimum detectable effect and every pair. Scores, Δ and intervals × 100; NaN as null.
   */
  private static void paired(ObjectNode node, PairedComparisons paired) {
    node.put("metric", paired.metric());
    node.put("correction", paired.correction().wireName());
    node.put("alpha", paired.alpha());
    node.put("power", paired.power());
    node.put("permutations", paired.permutations());
    node.put("exact_up_to_queries", PairedTest.EXACT_UP_TO);
    node.put("seed", paired.seed());
    node.put("note", PairedTables.explanation(paired));
    ArrayNode tasks = node.putArray("tasks");
    for (PairedComparisons.TaskComparisons task : paired.tasks()) {
      ObjectNode t = tasks.addObject();
      t.put("task", task.task().id());
      t.put("queries", task.queries());
      t.put("minimum_detectable_effect", finite(task.detectableEffect()));
      t.put("identical_pairs", task.identicalPairs().size());
      ArrayNode rows = t.putArray("rows");
      for (RowKey row : task.rows()) {
        ObjectNode r = rows.addObject();
        r.put("row", row.id());
        r.put("score", task.scores().get(row));
        interval(r, "query_interval", task.intervals().get(row));
        r.put("group", task.groups().get(row));
      }
      ArrayNode left = t.putArray("without_per_query_values");
      task.withoutQueries().forEach(row -> left.add(row.id()));
      ArrayNode pairs = t.putArray("pairs");
      for (PairedComparisons.Pair pair : task.pairs()) {
        ObjectNode p = pairs.addObject();
        p.put("higher", pair.higher().id());
        p.put("lower", pair.lower().id());
        p.put("queries", pair.queries());
        p.put("delta", finite(pair.delta()));
        if (Double.isNaN(pair.deltaInterval().low())) {
          p.putNull("delta_interval");
        } else {
          interval(p, "delta_interval", pair.deltaInterval());
        }
        p.put("randomization_p", finite(pair.randomizationP()));
        p.put("randomization_p_at_limit", pair.randomizationAtLimit());
        p.put("identical", pair.identical());
        p.put("randomization_p_corrected", finite(pair.randomizationAdjusted()));
        p.put("t_test_p", finite(pair.tTestP()));
        p.put("t_test_p_corrected", finite(pair.tTestAdjusted()));
      }
    }
  }

  /**
   * {@code bradley_terry}: how the rows' {@code bt_strength} and {@code bt_interval} were made
   * ({@link PreferenceTable#note}), the draws and those without a finite fit, and what they
   * resampled ("tasks" or "queries"); null when there is no fit.
   */
  private static void preference(ObjectNode root, Leaderboard board) {
    var preference = board.preference();
    if (preference == null) {
      root.putNull("bradley_terry");
      return;
    }
    ObjectNode node = root.putObject("bradley_terry");
    node.put("resampled", preference.resampledTasks() ? "tasks" : "queries");
    node.put("draws", preference.draws());
    node.put("draws_without_fit", preference.drawsWithoutFit());
    node.put("note", PreferenceTable.note(board));
  }

  static String text(Leaderboard board, boolean pretty) {
    try {
      return pretty
          ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree(board))
          : JSON.writeValueAsString(tree(board));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the leaderboard as JSON", e);
    }
  }

  private static void row(ObjectNode node, LeaderboardRow row, Leaderboard board) {
    node.put("id", row.key().id());
    node.put("system", row.key().system().name());
    node.put("family", row.key().system().family());
    node.put("model", row.key().system().model());
    node.put("variant", row.key().variant());
    node.put("mode", row.key().mode());
    node.put("rank", row.rank());
    node.put("complete", row.complete());
    node.put("covered", row.covered());
    node.put("total", row.total());
    node.put("micro", row.micro());
    node.put("macro", row.macro());
    node.put("borda", row.borda());
    numbers(node.putObject("benchmarks"), row.benchmarks());
    ObjectNode scores = node.putObject("scores");
    row.scores().forEach((task, score) -> scores.put(task.id(), score));
    ObjectNode ties = node.putObject("tie_ranges");
    row.tieRanges().forEach((task, range) -> ties.put(task.id(), range));
    if (row.delta() == null) {
      node.putNull("delta");
    } else {
      ObjectNode delta = node.putObject("delta");
      delta.put("micro", row.delta().micro());
      delta.put("macro", row.delta().macro());
      numbers(delta.putObject("benchmarks"), row.delta().benchmarks());
      ObjectNode perTask = delta.putObject("tasks");
      row.delta().tasks().forEach((task, value) -> perTask.put(task.id(), value));
    }
    interval(node, "micro_interval", row.microInterval());
    interval(node, "macro_interval", row.macroInterval());
    node.put("swap_with_next", row.swapWithNext());
    interval(node, "query_interval", row.queryInterval());
    node.put("statistical_group", row.statisticalGroup());
    if (row.rankInterval() == null) {
      node.putNull("rank_interval");
      node.putNull("tied_for_first");
    } else {
      node.putArray("rank_interval").add(row.rankInterval().best()).add(row.rankInterval().worst());
      node.put("tied_for_first", row.tiedForFirst());
    }
    var preference = board.preference();
    node.put("bt_strength", preference == null ? null : preference.strengths().get(row.key()));
    interval(
        node, "bt_interval", preference == null ? null : preference.intervals().get(row.key()));
    node.put("dimension", row.facts().dimension());
    node.put("parameters", row.facts().parameters());
    node.put("parameters_bucket", LengthBuckets.parameters(row.facts().parameters()));
    // per document: a chunked variant counts every window (the *_per_vector names are the same
    // figures, kept for readers of earlier files)
    node.put("stored_bytes_per_document", row.facts().bytesPerVector());
    node.put("scanned_bytes_per_document", row.facts().scannedBytesPerVector());
    node.put("bytes_per_vector", row.facts().bytesPerVector());
    node.put("stored_bytes_per_vector", row.facts().bytesPerVector());
    node.put("scanned_bytes_per_vector", row.facts().scannedBytesPerVector());
    node.put("latency_us", row.facts().latencyUs());
    node.put("latency_p99_us", row.facts().latencyP99Us());
    // with several queries in flight: the most and fewest of the row's cells (the same unless its
    // cells were measured with different numbers), null for cells stored before it was measured
    var concurrent = row.facts().concurrent();
    node.put("concurrent_in_flight", concurrent == null ? null : concurrent.inFlightMax());
    node.put("concurrent_in_flight_min", concurrent == null ? null : concurrent.inFlightMin());
    node.put("concurrent_latency_p50_us", concurrent == null ? null : concurrent.p50Us());
    node.put("concurrent_latency_p99_us", concurrent == null ? null : concurrent.p99Us());
    node.put(
        "concurrent_queries_per_second", concurrent == null ? null : concurrent.queriesPerSecond());
    node.put("index_ms_per_document", row.facts().indexMsPerDocument());
    node.put("gpu", row.facts().gpu());
    var price = board.options().price();
    node.put("cost_per_1k_queries", price == null ? null : row.facts().costPer1kQueries(price));
    node.put("cost_per_1m_documents", price == null ? null : row.facts().costPer1mDocuments(price));
  }

  private static void numbers(ObjectNode node, Map<String, Double> values) {
    values.forEach(node::put);
  }

  private static void interval(ObjectNode node, String name, Interval interval) {
    if (interval == null) {
      node.putNull(name);
    } else {
      node.putArray(name).add(interval.low()).add(interval.high());
    }
  }

  private static void correlation(ObjectNode node, OfficialCorrelation correlation) {
    node.put("source", correlation.official().source());
    node.put("column", correlation.official().column());
    node.put("n", correlation.matches().size());
    node.put("spearman", finite(correlation.spearman()));
    interval(node, "spearman_interval", correlation.spearmanInterval());
    node.put("pearson", finite(correlation.pearson()));
    interval(node, "pearson_interval", correlation.pearsonInterval());
    ArrayNode matches = node.putArray("matches");
    for (OfficialCorrelation.Match match : correlation.matches()) {
      ObjectNode m = matches.addObject();
      m.put("model", match.model());
      m.put("row", match.row().id());
      m.put("ours", match.ours());
      m.put("theirs", match.theirs());
    }
    ArrayNode unmatched = node.putArray("unmatched");
    correlation.unmatched().forEach(unmatched::add);
  }

  private static Double finite(double value) {
    return Double.isFinite(value) ? value : null;
  }
}
