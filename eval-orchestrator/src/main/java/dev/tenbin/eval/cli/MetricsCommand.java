package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.metrics.Evaluation;
import dev.tenbin.eval.metrics.Qrels;
import dev.tenbin.eval.metrics.RankingEvaluator;
import dev.tenbin.eval.metrics.RunOrder;
import dev.tenbin.eval.metrics.ScoredDoc;
import dev.tenbin.eval.run.QrelsReader;
import dev.tenbin.eval.run.TrecRunReader;
import dev.tenbin.eval.tieaware.TieAwareValue;
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
 * {@code tenbin metrics}: evaluates a TREC run file as {@code trec_eval -c} (version 10) does.
 * Every judged query counts, judged queries missing from the run score 0, and the run is re-sorted
 * by score descending with ties broken by docno descending.
 */
@Command(
    name = "metrics",
    mixinStandardHelpOptions = true,
    description = "Evaluate a TREC run file (qid Q0 docid rank score tag) as trec_eval -c does.")
public final class MetricsCommand implements Callable<Integer> {
  @Option(names = "--qrels", required = true, paramLabel = "FILE", description = "TREC or BEIR-tsv qrels.")
  Path qrelsFile;

  @Option(names = "--run", required = true, paramLabel = "FILE", description = "TREC run file.")
  Path runFile;

  @Option(names = "--json", description = "Print exactly one JSON object on stdout.")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Qrels qrels = QrelsReader.read(qrelsFile);
    Map<String, List<ScoredDoc>> run = TrecRunReader.read(runFile);
    PrintWriter err = spec.commandLine().getErr();
    long unjudged = run.keySet().stream().filter(q -> !qrels.isJudged(q)).count();
    if (unjudged > 0) {
      err.println("tenbin: warning: " + unjudged + " run queries have no judgments (ignored, as trec_eval)");
    }
    Evaluation evaluation =
        RankingEvaluator.standard().evaluate(qrels, run, qrels.queryIds(), RunOrder.TREC_EVAL);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = mapper.createObjectNode();
      root.put("qrels", qrelsFile.toString());
      root.put("run", runFile.toString());
      root.put("num_queries", evaluation.numQueries());
      ObjectNode metrics = root.putObject("metrics");
      evaluation.means().forEach(metrics::put);
      ObjectNode tieAware = root.putObject("tie_aware");
      for (Map.Entry<String, TieAwareValue> entry : evaluation.tieAware().entrySet()) {
        ObjectNode value = tieAware.putObject(entry.getKey());
        value.put("expected", entry.getValue().expected());
        value.put("min", entry.getValue().min());
        value.put("max", entry.getValue().max());
        value.put("range", entry.getValue().range());
        value.put("bias", entry.getValue().bias());
      }
      out.println(root);
    } else {
      out.printf(Locale.ROOT, "%-14s %-8s %10s %10s %10s %10s%n", "metric", "queries", "value", "expected", "min", "max");
      for (Map.Entry<String, Double> entry : evaluation.means().entrySet()) {
        TieAwareValue tie = evaluation.tieAware().get(entry.getKey());
        out.printf(
            Locale.ROOT,
            "%-14s %-8d %10.4f %10.4f %10.4f %10.4f%n",
            entry.getKey(), evaluation.numQueries(), entry.getValue(), tie.expected(), tie.min(), tie.max());
      }
    }
    out.flush();
    return 0;
  }
}
