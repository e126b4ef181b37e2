package dev.tenbin.eval.aggregate;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.Price;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.PhaseTimings;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.proto.index.v1.Quantization;
import java.util.List;
import java.util.Map;

/**
 * What a row costs and is: for filtering and the Pareto charts.
 *
 * @param dimension vector dimension, or null (BM25, unknown)
 * @param parameters model parameter count, or null
 * @param bytesPerVector stored bytes per document (what a deployment keeps for one: a rescored
 *     quantization's codes and its float vectors, every window of a chunked variant), or null; the
 *     Pareto chart's memory axis
 * @param scannedBytesPerVector what the first stage reads per document (every window), or null
 * @param latencyUs mean over the row's cells of the measured single-query latency, encode plus
 *     search (µs; the cells' {@code query_encode_latency_us + search_latency_us} probes, else their
 *     batch per-query averages), or null when no cell timed it
 * @param indexMsPerDocument mean over the row's cells of the measured time to encode and index one
 *     document for the row's variant ({@link PhaseTimings#indexingMs} / num_documents: {@code
 *     index_ms}, which holds the documents' encoding, plus the variant's own {@code
 *     variant_index_ms}; cells stored before that was measured count their shared indexing only),
 *     or null when no cell timed it
 * @param gpu whether a cell of the row encoded on a GPU (its {@code onnxruntime_device} is CUDA)
 * @param latencyP99Us mean over the row's cells of the 99th percentile of the single-query encode
 *     latency plus that of the search ({@code query_encode_latency_p99_us + search_latency_p99_us};
 *     the sum bounds the tail of the whole query), or null when no cell measured them
 * @param concurrent the latency with several queries in flight over the row's cells that measured
 *     it, or null when none did (cells stored before it was measured)
 */
public record RowFacts(
    Double dimension,
    Double parameters,
    Double bytesPerVector,
    Double scannedBytesPerVector,
    Double latencyUs,
    Double indexMsPerDocument,
    boolean gpu,
    Double latencyP99Us,
    Concurrent concurrent) {
  /**
   * Latency with several queries in flight ({@link ConcurrentLatency}), over a row's cells: the
   * means of the cells' figures, and the queries in flight they were measured with (the same in
   * every cell unless the cells were stored by jobs that stated different numbers, or a task had
   * fewer queries than that).
   *
   * @param inFlightMin the fewest queries in flight of the row's cells
   * @param inFlightMax the most queries in flight of the row's cells
   * @param p50Us mean over the cells of the median latency of a query's whole path (µs)
   * @param p99Us mean over the cells of its 99th percentile (µs)
   * @param queriesPerSecond mean over the cells of the queries answered per second
   */
  public record Concurrent(
      int inFlightMin, int inFlightMax, double p50Us, double p99Us, double queriesPerSecond) {
    /** The queries in flight as a label: "4", or "2–4" when the cells differ. */
    public String inFlight() {
      return inFlightMin == inFlightMax
          ? String.valueOf(inFlightMax)
          : inFlightMin + "–" + inFlightMax;
    }

    /** The figures of the cells that measured them, or null when none did. */
    static Concurrent of(List<CellRecord> cells) {
      List<ConcurrentLatency> measured = new java.util.ArrayList<>();
      for (CellRecord cell : cells) {
        ConcurrentLatency latency = ConcurrentLatency.fromDiagnostics(cell.diagnostics());
        if (latency != null) {
          measured.add(latency);
        }
      }
      if (measured.isEmpty()) {
        return null;
      }
      return new Concurrent(
          measured.stream().mapToInt(ConcurrentLatency::inFlight).min().orElseThrow(),
          measured.stream().mapToInt(ConcurrentLatency::inFlight).max().orElseThrow(),
          measured.stream().mapToDouble(ConcurrentLatency::p50Us).average().orElseThrow(),
          measured.stream().mapToDouble(ConcurrentLatency::p99Us).average().orElseThrow(),
          measured.stream()
              .mapToDouble(ConcurrentLatency::queriesPerSecond)
              .average()
              .orElseThrow());
    }
  }

  /** The facts of a row's cells: the first cell that knows a fact supplies it. */
  public static RowFacts of(List<CellRecord> cells) {
    double latency = 0;
    int timed = 0;
    for (CellRecord cell : cells) {
      Map<String, Double> timings = cell.timings() == null ? Map.of() : cell.timings();
      boolean probed = timings.containsKey("search_latency_us");
      Double encode = timings.get(probed ? "query_encode_latency_us" : "per_query_encode_us");
      Double search = timings.get(probed ? "search_latency_us" : "per_query_search_us");
      if (encode != null || search != null) {
        latency += (encode == null ? 0 : encode) + (search == null ? 0 : search);
        timed++;
      }
    }
    double tail = 0;
    int tailed = 0;
    double indexing = 0;
    int indexed = 0;
    boolean gpu = false;
    for (CellRecord cell : cells) {
      Map<String, Double> timings = cell.timings() == null ? Map.of() : cell.timings();
      Double documents = cell.facts() == null ? null : cell.facts().get("num_documents");
      Double index = PhaseTimings.of(timings).indexingMs();
      if (documents != null && documents > 0 && index != null) {
        indexing += index / documents;
        indexed++;
      }
      Double encodeTail = timings.get("query_encode_latency_p99_us");
      Double searchTail = timings.get("search_latency_p99_us");
      if (searchTail != null) {
        tail += searchTail + (encodeTail == null ? 0 : encodeTail);
        tailed++;
      }
      String device = cell.versions() == null ? null : cell.versions().get("onnxruntime_device");
      gpu |= device != null && device.toLowerCase(java.util.Locale.ROOT).startsWith("cuda");
    }
    return new RowFacts(
        fact(cells, "dimension"),
        fact(cells, "parameters"),
        perDocument(cells, storedBytesPerVector(cells)),
        perDocument(cells, scannedBytesPerVector(cells)),
        timed == 0 ? null : latency / timed,
        indexed == 0 ? null : indexing / indexed,
        gpu,
        tailed == 0 ? null : tail / tailed,
        Concurrent.of(cells));
  }

  /**
   * Bytes per vector as bytes per document: times the cells' "vectors_per_document" (a chunked
   * variant keeps and scans every window of a document), else as they are (one vector each).
   */
  private static Double perDocument(List<CellRecord> cells, Double perVector) {
    if (perVector == null) {
      return null;
    }
    Double vectors = number(cells, "vectors_per_document");
    return vectors == null ? perVector : perVector * vectors;
  }

  private static Double fact(List<CellRecord> cells, String name) {
    for (CellRecord cell : cells) {
      Double value = cell.facts() == null ? null : cell.facts().get(name);
      if (value != null && Double.isFinite(value)) {
        return value;
      }
    }
    return null;
  }

  /**
   * Scanned bytes: the cells' "scanned_bytes_per_vector", else (cells from before it) their
   * "bytes_per_vector", which always was the scanned figure.
   */
  private static Double scannedBytesPerVector(List<CellRecord> cells) {
    Double scanned = number(cells, "scanned_bytes_per_vector");
    return scanned != null ? scanned : number(cells, "bytes_per_vector");
  }

  /**
   * Stored bytes: the cells' "stored_bytes_per_vector", else (cells from before it) derived from
   * the scanned "bytes_per_vector": for a dense variant that rescores a quantization the float
   * vectors are added (4 · the "dimension" fact, the dimensions kept), otherwise it is the scanned
   * figure.
   */
  private static Double storedBytesPerVector(List<CellRecord> cells) {
    Double stored = number(cells, "stored_bytes_per_vector");
    if (stored != null) {
      return stored;
    }
    for (CellRecord cell : cells) {
      Double scanned = number(List.of(cell), "bytes_per_vector");
      if (scanned == null) {
        continue;
      }
      Double dimension = cell.facts() == null ? null : cell.facts().get("dimension");
      return rescoresQuantization(cell) && dimension != null ? scanned + 4 * dimension : scanned;
    }
    return null;
  }

  private static boolean rescoresQuantization(CellRecord cell) {
    if (cell.key() == null || cell.key().variant() == null) {
      return false;
    }
    try {
      DenseVariant variant = DenseVariant.parse(cell.key().variant());
      return variant.rescore() && variant.quantization() != Quantization.QUANTIZATION_NONE;
    } catch (InvalidInputException e) {
      return false;
    }
  }

  /** A number the cells know as a fact, else as a diagnostic: the first cell's that knows it. */
  private static Double number(List<CellRecord> cells, String name) {
    Double fact = fact(cells, name);
    if (fact != null) {
      return fact;
    }
    for (CellRecord cell : cells) {
      Object value = cell.diagnostics() == null ? null : cell.diagnostics().get(name);
      if (value instanceof Number number) {
        return number.doubleValue();
      }
    }
    return null;
  }

  /** The hourly price of this row's device ({@link #gpu}); 0 when that price was not given. */
  public double hourly(Price price) {
    return gpu ? price.gpuHour() : price.cpuHour();
  }

  /**
   * Cost of 1,000 single queries at {@code price}: the measured single-query latency (encode plus
   * search, {@link #latencyUs}) × 1,000, one query at a time on the whole machine (a deployment
   * that runs several at once divides it by its concurrency); null without a latency or a price for
   * the device.
   */
  public Double costPer1kQueries(Price price) {
    double hourly = hourly(price);
    return latencyUs == null || hourly == 0 ? null : latencyUs * 1_000 / 3.6e9 * hourly;
  }

  /**
   * Cost of indexing 1,000,000 documents at {@code price}: the measured indexing time per document
   * (encode, ingest and the variant's own indexing, {@link #indexMsPerDocument}) × 1,000,000, one
   * document at a time; null without an indexing time or a price.
   */
  public Double costPer1mDocuments(Price price) {
    double hourly = hourly(price);
    return indexMsPerDocument == null || hourly == 0
        ? null
        : indexMsPerDocument * 1_000_000 / 3.6e6 * hourly;
  }
}
