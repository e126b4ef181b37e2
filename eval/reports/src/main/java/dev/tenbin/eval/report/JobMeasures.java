package dev.tenbin.eval.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenbin.eval.aggregate.ChosenMeasures;
import dev.tenbin.eval.aggregate.RowKey;
import dev.tenbin.eval.job.JobJudgments;
import dev.tenbin.eval.job.MeasureSpecs;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.Metric;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Measures the stored rankings of jobs at the cut-offs a job spec ({@code measures:}) or {@code
 * tenbin report --measure} chose, against the judgments each job kept ({@link JobJudgments}). The
 * cells themselves keep the standard suite, which their fingerprints fix; these values are derived
 * from them whenever a report is written, so choosing other measures recomputes nothing.
 */
public final class JobMeasures {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private JobMeasures() {}

  /** The measures of the spec a job folder ran ({@code job.yaml}); empty when it names none. */
  public static List<String> ofJobFolder(Path jobDirectory) {
    Path spec = jobDirectory.resolve("job.yaml");
    if (!Files.isRegularFile(spec)) {
      return List.of();
    }
    try {
      JsonNode root = YAML.readTree(spec.toFile());
      return root == null ? List.of() : MeasureSpecs.fromYaml(root.path("measures"));
    } catch (IOException | dev.tenbin.core.InvalidInputException e) {
      // The spec was checked when the job was submitted; one that no longer parses chose none.
      return List.of();
    }
  }

  /**
   * Measures every cell of {@code cellsByJob} (cells by the job folder holding them) at {@code
   * specs}; null when {@code specs} is empty. A row and task held by two folders is measured once,
   * from the first.
   */
  public static ChosenMeasures measure(List<String> specs, Map<Path, List<CellRecord>> cellsByJob) {
    if (specs.isEmpty()) {
      return null;
    }
    List<Metric> metrics = MeasureSpecs.metrics("measures", specs);
    RankingEvaluator evaluator = new RankingEvaluator(metrics);
    Map<RowKey, Map<TaskRef, Map<String, ChosenMeasures.Value>>> values = new LinkedHashMap<>();
    int unmeasured = 0;
    for (Map.Entry<Path, List<CellRecord>> job : cellsByJob.entrySet()) {
      ResultStore store = ResultStore.existing(job.getKey(), "DIR");
      Map<String, Optional<Qrels>> judgments = new HashMap<>();
      for (CellRecord cell : job.getValue()) {
        Map<TaskRef, Map<String, ChosenMeasures.Value>> row =
            values.computeIfAbsent(RowKey.of(cell.key()), k -> new LinkedHashMap<>());
        if (row.containsKey(cell.key().task())) {
          continue;
        }
        Optional<Qrels> qrels =
            judgments.computeIfAbsent(
                cell.versions().get("dataset_sha"), sha -> JobJudgments.read(job.getKey(), sha));
        Optional<CellRecord> ranked =
            qrels.isEmpty() ? Optional.empty() : store.read(cell.fingerprint());
        if (ranked.isEmpty()) {
          unmeasured++;
          continue;
        }
        row.put(cell.key().task(), measure(evaluator, metrics, qrels.get(), ranked.get()));
      }
    }
    values.values().removeIf(Map::isEmpty);
    return new ChosenMeasures(
        specs, metrics.stream().map(Metric::name).toList(), values, unmeasured);
  }

  private static Map<String, ChosenMeasures.Value> measure(
      RankingEvaluator evaluator, List<Metric> metrics, Qrels qrels, CellRecord cell) {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    List<String> queryIds = new ArrayList<>();
    for (StoredQuery query : cell.queries()) {
      queryIds.add(query.queryId());
      List<ScoredDoc> docs = new ArrayList<>(query.docs().size());
      for (StoredDoc doc : query.docs()) {
        docs.add(new ScoredDoc(doc.docId(), doc.score()));
      }
      run.put(query.queryId(), docs);
    }
    Evaluation evaluation = evaluator.evaluate(qrels, run, queryIds, RunOrder.AS_GIVEN);
    Map<String, ChosenMeasures.Value> values = new LinkedHashMap<>();
    for (Metric metric : metrics) {
      values.put(
          metric.name(),
          new ChosenMeasures.Value(
              evaluation.means().get(metric.name()), evaluation.tieAware().get(metric.name())));
    }
    return values;
  }
}
