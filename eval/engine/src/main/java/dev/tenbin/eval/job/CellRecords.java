package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.positions.DocumentLengths;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionAnalyzer;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.positions.StoredPositions;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.text.WhitespaceSplit;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns an evaluated run into the stored record of its cell, with the {@link QueryBootstrap}
 * intervals of its means. A cell of a task with answer spans also keeps its PosIR position analysis
 * ({@link StoredPositions}, by the job's {@link PositionSettings}; no reference correlation: that
 * compares two cells, and is computed when reports are written).
 */
public final class CellRecords {
  private CellRecords() {}

  /** The record of {@code cell} with the default position settings. */
  public static CellRecord of(PlannedCell cell, CellResult run, JobTask task) {
    return of(cell, run, task, PositionSettings.DEFAULTS);
  }

  /**
   * The record of {@code cell}; a task with spans stores its position analysis by {@code
   * positions}' tokenizer and minimum count, over the lengths of the task's {@code
   * length_reference} (its own documents when none).
   */
  public static CellRecord of(
      PlannedCell cell, CellResult run, JobTask task, PositionSettings positions) {
    BeirDataset data = task.data();
    Map<String, Double> facts = new TreeMap<>(cell.facts());
    facts.put("num_queries", (double) run.numQueries());
    facts.put("num_documents", (double) data.corpus().size());
    double[] words = WORDS.computeIfAbsent(task.datasetSha(), sha -> words(data));
    facts.put("avg_query_tokens", words[0]);
    facts.put("avg_document_tokens", words[1]);
    Long bytesPerVector = run.diagnostics().bytesPerVector();
    if (bytesPerVector != null && bytesPerVector > 0) {
      facts.put("bytes_per_vector", bytesPerVector.doubleValue());
    }
    Double vectors = run.diagnostics().vectorsPerDocument();
    if (vectors != null) {
      facts.put("vectors_per_document", vectors);
    }
    Long stored = run.diagnostics().storedBytesPerVector();
    Long scanned = run.diagnostics().scannedBytesPerVector();
    if (stored != null && stored > 0 && scanned != null && scanned > 0) {
      facts.put("stored_bytes_per_vector", stored.doubleValue());
      facts.put("scanned_bytes_per_vector", scanned.doubleValue());
    }
    List<StoredQuery> queries = new ArrayList<>();
    for (String queryId : data.evaluatedQueryIds()) {
      List<ScoredDoc> ranking = run.rankings().getOrDefault(queryId, List.of());
      List<StoredDoc> docs = new ArrayList<>(ranking.size());
      for (int i = 0; i < ranking.size(); i++) {
        docs.add(new StoredDoc(ranking.get(i).docId(), ranking.get(i).score(), i + 1));
      }
      Map<String, Double> metrics = run.perQuery().getOrDefault(queryId, Map.of());
      queries.add(
          new StoredQuery(
              queryId, Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metrics)), docs));
    }
    Map<String, Object> diagnostics = new TreeMap<>(run.diagnostics().asMap());
    diagnostics.put(
        QueryBootstrap.KEY,
        QueryBootstrap.toDiagnostic(
            QueryBootstrap.intervals(queries.stream().map(StoredQuery::metrics).toList())));
    if (!data.spans().isEmpty()) {
      JobTask.LengthSource source = task.lengthSource();
      BeirDataset reference = source == null ? data : source.data();
      String lengthsKey =
          task.datasetSha()
              + "|"
              + (source == null ? "" : source.datasetSha())
              + "|"
              + positions.tokenizer();
      DocumentLengths lengths =
          LENGTHS.computeIfAbsent(
              lengthsKey,
              key -> {
                try (LengthTokenizer tokenizer = LengthTokenizer.open(positions.tokenizer())) {
                  DocumentLengths counted = DocumentLengths.count(data, reference, tokenizer);
                  return new DocumentLengths(task.lengthTask(), counted.tokens());
                }
              });
      PositionAnalysis analysis =
          new PositionAnalyzer(positions.tokenizer(), lengths, positions.minCount())
              .analyse(data.evaluatedQueryIds(), run.perQuery(), data.spans());
      diagnostics.put(StoredPositions.KEY, StoredPositions.toDiagnostic(analysis));
    }
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        cell.fingerprint(),
        cell.key(),
        cell.versions(),
        facts,
        run.metrics(),
        run.tieAware(),
        run.timings().asMap(),
        diagnostics,
        queries,
        Instant.now().truncatedTo(ChronoUnit.MILLIS).toString());
  }

  /**
   * Span documents' lengths per dataset, length reference and tokenizer, counted once while in use;
   * the least recently used go first, so a service that runs for weeks keeps a bounded number.
   */
  private static final Map<String, DocumentLengths> LENGTHS = recentlyUsed();

  /** Mean words per dataset, as {@link #LENGTHS}. */
  private static final Map<String, double[]> WORDS = recentlyUsed();

  private static final int RECENT_DATASETS = 64;

  private static <V> Map<String, V> recentlyUsed() {
    return Collections.synchronizedMap(
        new java.util.LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
            return size() > RECENT_DATASETS;
          }
        });
  }

  /**
   * Mean whitespace-separated words of the evaluated queries and of the documents (title + text).
   */
  private static double[] words(BeirDataset d) {
    long queryWords = 0;
    for (String id : d.evaluatedQueryIds()) {
      queryWords += WhitespaceSplit.count(d.queries().getOrDefault(id, ""));
    }
    long documentWords = d.corpus().words();
    return new double[] {
      d.evaluatedQueryIds().isEmpty() ? 0 : (double) queryWords / d.evaluatedQueryIds().size(),
      d.corpus().isEmpty() ? 0 : (double) documentWords / d.corpus().size()
    };
  }
}
