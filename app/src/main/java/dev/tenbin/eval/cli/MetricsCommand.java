package dev.tenbin.eval.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.MetricSuite;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.metrics.TieAwareValue;
import dev.tenbin.scoring.trec.InputFileException;
import dev.tenbin.scoring.trec.QrelsReader;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin metrics}: evaluates a TREC run file as {@code trec_eval -c} (version 10) does, plus
 * the tie-aware view of each metric. Every judged query of the qrels counts (one with only grade-0
 * judgments too), judged queries missing from the run score 0, run queries without judgments are
 * ignored with a warning, and each query's documents are re-sorted by score descending with ties
 * broken by docno descending ({@link RunOrder#TREC_EVAL}).
 *
 * <p>Exit codes: 0 on success, 2 for a missing or malformed file or a bad option (one message on
 * stderr, no stack trace).
 */
@Command(
    name = "metrics",
    mixinStandardHelpOptions = true,
    description = {
      "Evaluate a TREC run file against qrels as trec_eval -c does (nDCG@10/100, recall@10/100,"
          + " accuracy@1/10/100, MRR@10, MAP@100), with the tie-aware expectation, min, max, range"
          + " and bias of each metric over the orders of tied scores.",
      "Every judged query counts; judged queries absent from the run score 0; the run is re-sorted"
          + " by score descending, ties by docno descending."
    })
public final class MetricsCommand implements Callable<Integer> {
  private static final int EXIT_OK = 0;
  private static final int EXIT_BAD_INPUT = 2;
  private static final int WARNING_EXAMPLES = 5;

  @Option(
      names = "--qrels",
      required = true,
      paramLabel = "FILE",
      description =
          "Judgments: TREC qrels (qid iter docid grade) or BEIR tsv (query-id corpus-id score, optional header).")
  Path qrelsFile;

  @Option(
      names = "--run",
      required = true,
      paramLabel = "FILE",
      description = "TREC run file: qid Q0 docid rank score tag (the rank column is ignored).")
  Path runFile;

  @Option(
      names = "--json",
      description =
          "Print exactly one JSON object on stdout instead of a table: qrels, run, num_queries, metrics,"
              + " tie_aware, timings_ms (read: parsing both files; evaluate: the checks and"
              + " metrics; in the JVM, without its start).")
  boolean json;

  @Option(
      names = {"-m", "--measure"},
      paramLabel = "MEASURE",
      description =
          "trec_eval measures instead of the standard suite, e.g. -m P.5,10,100 -m ndcg_cut.5,20:"
              + " P.K, recall.K, ndcg_cut.K, success.K, map_cut.K (cut-offs comma-separated),"
              + " ndcg, map, recip_rank; each with its tie-aware form.")
  List<String> measures = new java.util.ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    RankingEvaluator evaluator;
    try {
      evaluator =
          measures.isEmpty()
              ? RankingEvaluator.standard()
              : new RankingEvaluator(MetricSuite.trecEvalMeasures(measures));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("--measure", "--measure: " + e.getMessage());
    }
    long started = System.nanoTime();
    Qrels qrels;
    Map<String, List<ScoredDoc>> run;
    try {
      qrels = QrelsReader.read(qrelsFile);
      run = TrecRunReader.read(runFile);
    } catch (InputFileException e) {
      err.println("tenbin metrics: " + e.getMessage());
      err.flush();
      return EXIT_BAD_INPUT;
    }
    long read = System.nanoTime();
    warnAboutRun(qrels, run, err);
    Evaluation evaluation = evaluator.evaluate(qrels, run, qrels.queryIds(), RunOrder.TREC_EVAL);
    long evaluated = System.nanoTime();
    out.print(
        json
            ? toJson(evaluation, millis(started, read), millis(read, evaluated))
                + System.lineSeparator()
            : toTable(evaluation));
    out.flush();
    return EXIT_OK;
  }

  private static void warnAboutRun(Qrels qrels, Map<String, List<ScoredDoc>> run, PrintWriter err) {
    if (run.isEmpty()) {
      err.println("tenbin metrics: warning: the run file holds no results; every query scores 0");
    }
    List<String> unjudged = run.keySet().stream().filter(q -> !qrels.isJudged(q)).toList();
    if (!unjudged.isEmpty()) {
      err.println(
          "tenbin metrics: warning: ignoring "
              + count(unjudged.size(), "run query", "run queries")
              + " without judgments, as trec_eval does: "
              + examples(unjudged));
    }
    long repeats =
        run.entrySet().parallelStream()
            .filter(query -> qrels.isJudged(query.getKey()))
            .mapToLong(query -> RunOrder.repeatedDocuments(query.getValue()))
            .sum();
    if (repeats > 0) {
      err.println(
          "tenbin metrics: warning: "
              + count(repeats, "run line repeats", "run lines repeat")
              + " a docno of its query; the first line of each docno is kept"
              + " (trec_eval 10 refuses such a run)");
    }
    err.flush();
  }

  private static String count(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }

  private static String examples(List<String> ids) {
    String shown = String.join(", ", ids.subList(0, Math.min(WARNING_EXAMPLES, ids.size())));
    return ids.size() > WARNING_EXAMPLES ? shown + ", ..." : shown;
  }

  private static double millis(long fromNanos, long toNanos) {
    return (toNanos - fromNanos) / 1e6;
  }

  private String toJson(Evaluation evaluation, double readMillis, double evaluateMillis) {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode root = mapper.createObjectNode();
    root.put("qrels", qrelsFile.toString());
    root.put("run", runFile.toString());
    root.put("num_queries", evaluation.numQueries());
    ObjectNode metrics = root.putObject("metrics");
    evaluation.means().forEach(metrics::put);
    ObjectNode tieAware = root.putObject("tie_aware");
    evaluation
        .tieAware()
        .forEach(
            (name, value) -> {
              ObjectNode node = tieAware.putObject(name);
              node.put("expected", value.expected());
              node.put("min", value.min());
              node.put("max", value.max());
              node.put("range", value.range());
              node.put("bias", value.bias());
            });
    ObjectNode timings = root.putObject("timings_ms");
    timings.put("read", readMillis);
    timings.put("evaluate", evaluateMillis);
    try {
      return mapper.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  private String toTable(Evaluation evaluation) {
    StringBuilder table = new StringBuilder();
    table.append(String.format(Locale.ROOT, "qrels    %s%n", qrelsFile));
    table.append(String.format(Locale.ROOT, "run      %s%n", runFile));
    table.append(String.format(Locale.ROOT, "queries  %d%n%n", evaluation.numQueries()));
    table.append(
        String.format(
            Locale.ROOT,
            "%-13s %8s %9s %8s %8s %8s %8s%n",
            "metric",
            "value",
            "expected",
            "min",
            "max",
            "range",
            "bias"));
    evaluation
        .means()
        .forEach(
            (name, value) -> {
              TieAwareValue tie = evaluation.tieAware().get(name);
              table.append(
                  String.format(
                      Locale.ROOT,
                      "%-13s %8.4f %9.4f %8.4f %8.4f %8.4f %8.4f%n",
                      name,
                      value,
                      tie.expected(),
                      tie.min(),
                      tie.max(),
                      tie.range(),
                      tie.bias()));
            });
    return table.toString();
  }
}
