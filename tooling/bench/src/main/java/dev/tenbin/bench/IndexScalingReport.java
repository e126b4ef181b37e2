package dev.tenbin.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.bench.index.IndexScalingBenchmark;
import dev.tenbin.bench.index.IndexScalingBenchmark.Config;
import dev.tenbin.bench.index.IndexScalingBenchmark.HnswCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.HnswPoint;
import dev.tenbin.bench.index.IndexScalingBenchmark.Memory;
import dev.tenbin.bench.index.IndexScalingBenchmark.RescoreCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.ShardedHnswCurve;
import dev.tenbin.bench.index.IndexScalingBenchmark.ShortlistPoint;
import dev.tenbin.bench.index.IndexScalingBenchmark.SizeResult;
import java.util.List;
import java.util.Locale;

/** The output of {@code tenbin bench index-scaling}: a JSON document and a text table. */
final class IndexScalingReport {
  private IndexScalingReport() {}

  static String json(Config config, List<SizeResult> results) {
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("dimension", config.dimension());
    root.put("seed", config.seed());
    root.put("queries", config.queries());
    root.put("clusters", config.clusters());
    root.put("k", 10);
    root.put("target_recall", IndexScalingBenchmark.TARGET_RECALL);
    BenchCommand.putFinite(root, "peak_fma_gflops", config.peakGflops());
    root.put("processors", Runtime.getRuntime().availableProcessors());
    root.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
    ArrayNode sizes = root.putArray("sizes");
    for (SizeResult r : results) {
      ObjectNode s = sizes.addObject();
      s.put("size", r.size());
      s.put("file_bytes", r.fileBytes());
      s.put("ingest_vectors_per_s", r.ingestVectorsPerSecond());
      memory(s.putObject("memory_after_scans"), r.afterScans());
      memory(s.putObject("memory_after_hnsw"), r.afterHnsw());
      s.put("float_ms_per_query", r.floatMillisPerQuery());
      s.put("float_batch_ms_per_query", r.floatBatchMillisPerQuery());
      s.put("float_gflops", r.floatGflops());
      s.put("float_batch_gflops", r.floatBatchGflops());
      BenchCommand.putFinite(s, "float_fraction_of_peak", r.floatFractionOfPeak());
      BenchCommand.putFinite(s, "float_batch_fraction_of_peak", r.floatBatchFractionOfPeak());
      s.put("float_gb_per_s", r.floatGigabytesPerSecond());
      s.put("int8_ms_per_query", r.int8MillisPerQuery());
      s.put("binary_ms_per_query", r.binaryMillisPerQuery());
      s.put("int8_speedup", r.int8Speedup());
      s.put("binary_speedup", r.binarySpeedup());
      s.put("int8_rescore_ms_per_query", r.int8RescoreMillisPerQuery());
      s.put("binary_rescore_ms_per_query", r.binaryRescoreMillisPerQuery());
      s.put("int8_rescore_recall_at_10", r.int8RescoreRecallAt10());
      s.put("binary_rescore_recall_at_10", r.binaryRescoreRecallAt10());
      ArrayNode rescore = s.putArray("rescore");
      for (RescoreCurve curve : r.rescore()) {
        ObjectNode c = rescore.addObject();
        c.put("vectors", curve.vectors());
        ArrayNode points = c.putArray("depths");
        for (ShortlistPoint p : curve.points()) {
          ObjectNode o = points.addObject();
          o.put("depth", p.depth());
          o.put("ms_per_query", p.millisPerQuery());
          o.put("recall_at_10", p.recallAt10());
          o.put("speedup_over_float_scan", r.floatMillisPerQuery() / p.millisPerQuery());
        }
        ShortlistPoint first = curve.firstAtTargetRecall();
        if (first == null) {
          c.putNull("depth_at_target_recall");
        } else {
          c.put("depth_at_target_recall", first.depth());
        }
        BenchCommand.putFinite(c, "speedup_at_target_recall", r.rescoreSpeedup(curve));
      }
      ArrayNode hnsw = s.putArray("hnsw");
      for (HnswCurve curve : r.hnsw()) {
        ObjectNode c = hnsw.addObject();
        c.put("vectors", curve.vectors());
        c.put("rescored_in_float", !curve.vectors().equals("float"));
        c.put("build_seconds", curve.buildSeconds());
        ArrayNode points = c.putArray("beams");
        for (HnswPoint p : curve.points()) {
          ObjectNode o = points.addObject();
          o.put("beam", p.beamWidth());
          o.put("ms_per_query", p.millisPerQuery());
          o.put("recall_at_10", p.recallAt10());
          o.put("speedup_over_float_scan", r.floatMillisPerQuery() / p.millisPerQuery());
        }
        HnswPoint first = curve.firstAtTargetRecall();
        if (first == null) {
          c.putNull("beam_at_target_recall");
        } else {
          c.put("beam_at_target_recall", first.beamWidth());
        }
        BenchCommand.putFinite(c, "speedup_at_target_recall", r.hnswSpeedup(curve));
      }
      ArrayNode sharded = s.putArray("hnsw_shards");
      for (ShardedHnswCurve curve : r.shardedHnsw()) {
        ObjectNode c = sharded.addObject();
        c.put("shards", curve.shards());
        c.put("build_seconds", curve.buildSeconds());
        ArrayNode points = c.putArray("beams");
        for (HnswPoint p : curve.points()) {
          ObjectNode o = points.addObject();
          o.put("beam", p.beamWidth());
          o.put("queries_per_s", 1000 / p.millisPerQuery());
          o.put("merged_recall_at_10", p.recallAt10());
        }
      }
    }
    return root.toString();
  }

  private static void memory(ObjectNode node, Memory m) {
    node.put("rss_bytes", m.rss());
    node.put("peak_rss_bytes", m.peakRss());
    node.put("rss_file_bytes", m.rssFile());
    node.put("rss_anon_bytes", m.rssAnon());
    node.put("heap_used_bytes", m.heapUsed());
  }

  static String table(Config config, List<SizeResult> results) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%-10s %9s %9s %8s %8s %8s %8s %9s %9s %8s %8s %6s %6s %6s %6s%n",
            "vectors",
            "file MB",
            "ingest/s",
            "RSS MB",
            "file MB",
            "anon MB",
            "heap MB",
            "float ms",
            "batch ms",
            "int8 ms",
            "bin ms",
            "int8x",
            "binx",
            "peak%",
            "batch%"));
    for (SizeResult r : results) {
      Memory m = r.afterScans();
      out.append(
          String.format(
              Locale.ROOT,
              "%-10d %9.1f %9.0f %8.0f %8.0f %8.0f %8.0f %9.3f %9.3f %8.3f %8.3f %6.1f %6.1f %6.2f"
                  + " %6.2f%n",
              r.size(),
              r.fileBytes() / 1e6,
              r.ingestVectorsPerSecond(),
              m.rss() / 1e6,
              m.rssFile() / 1e6,
              m.rssAnon() / 1e6,
              m.heapUsed() / 1e6,
              r.floatMillisPerQuery(),
              r.floatBatchMillisPerQuery(),
              r.int8MillisPerQuery(),
              r.binaryMillisPerQuery(),
              r.int8Speedup(),
              r.binarySpeedup(),
              r.floatFractionOfPeak(),
              r.floatBatchFractionOfPeak()));
    }
    for (SizeResult r : results) {
      for (RescoreCurve curve : r.rescore()) {
        out.append(
            String.format(Locale.ROOT, "%-6s + float rescore at %,d:", curve.vectors(), r.size()));
        for (ShortlistPoint p : curve.points()) {
          out.append(
              String.format(
                  Locale.ROOT,
                  " depth %d: %.3f ms R@10 %.3f;",
                  p.depth(),
                  p.millisPerQuery(),
                  p.recallAt10()));
        }
        out.append(
            String.format(Locale.ROOT, " speed-up at R@10>=0.95: %.1f%n", r.rescoreSpeedup(curve)));
      }
      for (HnswCurve curve : r.hnsw()) {
        out.append(
            String.format(
                Locale.ROOT,
                "HNSW %-6s at %,d: build %.1f s;",
                curve.vectors(),
                r.size(),
                curve.buildSeconds()));
        for (HnswPoint p : curve.points()) {
          out.append(
              String.format(
                  Locale.ROOT,
                  " beam %d: %.3f ms R@10 %.3f;",
                  p.beamWidth(),
                  p.millisPerQuery(),
                  p.recallAt10()));
        }
        out.append(
            String.format(Locale.ROOT, " speed-up at R@10>=0.95: %.1f%n", r.hnswSpeedup(curve)));
      }
      for (ShardedHnswCurve curve : r.shardedHnsw()) {
        out.append(
            String.format(
                Locale.ROOT,
                "HNSW float, %d shard(s) at %,d: build %.1f s;",
                curve.shards(),
                r.size(),
                curve.buildSeconds()));
        for (HnswPoint p : curve.points()) {
          out.append(
              String.format(
                  Locale.ROOT,
                  " beam %d: %.1f queries/s merged R@10 %.3f;",
                  p.beamWidth(),
                  1000 / p.millisPerQuery(),
                  p.recallAt10()));
        }
        out.append(System.lineSeparator());
      }
    }
    return out.toString();
  }
}
