package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.bench.Bm25Benchmark;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.BeirDatasetReader;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LanguageDetector;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tenbin bench}: throughput figures for BENCHMARKS.md, measured side by side. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Measure throughput, in-process against over gRPC, in one run.",
    subcommands = {BenchCommand.Bm25.class})
public final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** {@code tenbin bench bm25 --dataset DIR}. */
  @Command(
      name = "bm25",
      mixinStandardHelpOptions = true,
      description = "BM25 indexing docs/s and queries/s, in-process vs over gRPC (loopback).")
  static final class Bm25 implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR") Path dataset;

    @Option(names = "--language", paramLabel = "CODE") String language;

    @Option(names = "--passes", defaultValue = "5", description = "Search passes over the queries.")
    int passes;

    @Option(names = "--json") boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      BeirDataset data = BeirDatasetReader.read(dataset);
      String lang =
          language != null
              ? LanguageAnalyzers.normalize(language)
              : LanguageDetector.detect(data.textSample(200_000));
      Bm25Benchmark.Result result = new Bm25Benchmark(data, lang, passes).run();
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("dataset", result.dataset());
        root.put("documents", result.documents());
        root.put("queries", result.queries());
        root.put("passes", result.passes());
        root.put("in_process_index_docs_per_s", result.inProcess().indexDocsPerSecond());
        root.put("grpc_index_docs_per_s", result.grpc().indexDocsPerSecond());
        root.put("index_grpc_over_in_process", result.indexRatio());
        root.put("in_process_queries_per_s", result.inProcess().queriesPerSecond());
        root.put("grpc_queries_per_s", result.grpc().queriesPerSecond());
        root.put("query_grpc_over_in_process", result.queryRatio());
        out.println(root);
      } else {
        out.printf(
            Locale.ROOT,
            "BM25 on %s (%d docs, %d queries x %d passes)%n"
                + "                 index docs/s   queries/s%n"
                + "in-process       %12.0f %11.0f%n"
                + "gRPC (loopback)  %12.0f %11.0f%n"
                + "gRPC/in-process  %12.2f %11.2f%n",
            result.dataset(), result.documents(), result.queries(), result.passes(),
            result.inProcess().indexDocsPerSecond(), result.inProcess().queriesPerSecond(),
            result.grpc().indexDocsPerSecond(), result.grpc().queriesPerSecond(),
            result.indexRatio(), result.queryRatio());
      }
      out.flush();
      return 0;
    }
  }
}
