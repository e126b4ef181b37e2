package dev.tenbin.eval.testing;

import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Builds small synthetic {@link CellRecord}s for aggregation and report tests. */
public final class SyntheticCells {
  private static final AtomicLong SERIAL = new AtomicLong();

  private String benchmark = "bench";
  private String dataset;
  private String task = "task";
  private String language = "en";
  private String domain = "";
  private String family = "dense";
  private String model = "m";
  private String variant = "base";
  private String mode = "retrieval";
  private String finishedAt = "2025-01-01T00:00:00Z";
  private double ndcg10;
  private double tieRange;
  private final Map<String, Double> facts = new HashMap<>();
  private final Map<String, Double> timings = new HashMap<>();
  private final Map<String, String> versions = new HashMap<>(Map.of("tenbin_version", "test"));
  private final Map<String, Object> diagnostics = new HashMap<>();
  private List<StoredQuery> queries = List.of();

  private SyntheticCells() {}

  /**
   * A cell of {@code system} ("bm25" or "family:model") and variant on a task, scoring {@code
   * ndcg10}.
   */
  public static SyntheticCells cell(
      String benchmark, String task, String system, String variant, double ndcg10) {
    SyntheticCells cell = new SyntheticCells();
    cell.benchmark = benchmark;
    cell.task = task;
    cell.system(system);
    cell.variant = variant;
    cell.ndcg10 = ndcg10;
    return cell;
  }

  private void system(String system) {
    if (system.equals("bm25")) {
      family = "bm25";
      model = "bm25";
    } else {
      int colon = system.indexOf(':');
      family = system.substring(0, colon);
      model = system.substring(colon + 1);
    }
  }

  public SyntheticCells dataset(String value) {
    dataset = value;
    return this;
  }

  public SyntheticCells language(String value) {
    language = value;
    return this;
  }

  public SyntheticCells domain(String value) {
    domain = value;
    return this;
  }

  public SyntheticCells mode(String value) {
    mode = value;
    return this;
  }

  public SyntheticCells finishedAt(String value) {
    finishedAt = value;
    return this;
  }

  /** The tie-aware range of ndcg@10 (0..1 scale). */
  public SyntheticCells tieRange(double value) {
    tieRange = value;
    return this;
  }

  /**
   * Stored queries with these ndcg@10 values (0..1 scale), for the query bootstrap; the cell's
   * ndcg@10 mean stays the one it was built with.
   */
  public SyntheticCells queryNdcg10(double... values) {
    List<StoredQuery> stored = new java.util.ArrayList<>();
    for (int q = 0; q < values.length; q++) {
      stored.add(new StoredQuery("q" + q, Map.of("ndcg@10", values[q]), List.of()));
    }
    queries = List.copyOf(stored);
    return this;
  }

  public SyntheticCells fact(String name, double value) {
    facts.put(name, value);
    return this;
  }

  public SyntheticCells version(String name, String value) {
    versions.put(name, value);
    return this;
  }

  public SyntheticCells timing(String name, double value) {
    timings.put(name, value);
    return this;
  }

  public SyntheticCells diagnostic(String name, Object value) {
    diagnostics.put(name, value);
    return this;
  }

  /** The diagnostics of a latency measured with {@code inFlight} queries in flight. */
  public SyntheticCells concurrentLatency(
      int inFlight, double p50Us, double p99Us, double queriesPerSecond) {
    diagnostics.put("concurrent_latency_in_flight", inFlight);
    diagnostics.put("concurrent_latency_p50_us", p50Us);
    diagnostics.put("concurrent_latency_p99_us", p99Us);
    diagnostics.put("concurrent_queries_per_second", queriesPerSecond);
    return this;
  }

  public CellRecord build() {
    CellKey key =
        CellKeys.key()
            .benchmark(benchmark)
            .dataset(dataset == null ? task : dataset)
            .task(task)
            .language(language)
            .domain(domain)
            .system(family, model)
            .variant(variant)
            .mode(RankingMode.ofWireName(mode))
            .build();
    String fingerprint =
        HexFormat.of()
                .formatHex(
                    java.nio.ByteBuffer.allocate(8).putLong(SERIAL.incrementAndGet()).array())
            + HexFormat.of()
                .formatHex(
                    Integer.toHexString(key.hashCode())
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        fingerprint,
        key,
        Map.copyOf(versions),
        Map.copyOf(facts),
        Map.of("ndcg@10", ndcg10, "recall@100", Math.min(1, ndcg10 + 0.2)),
        Map.of(
            "ndcg@10",
            new TieAwareValue(ndcg10, ndcg10 - tieRange / 2, ndcg10 + tieRange / 2, tieRange, 0)),
        Map.copyOf(timings),
        Map.copyOf(diagnostics),
        queries,
        finishedAt);
  }
}
