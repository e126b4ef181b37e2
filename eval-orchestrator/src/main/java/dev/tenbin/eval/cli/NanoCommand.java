package dev.tenbin.eval.cli;

import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.job.EmbeddingCaches;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.nano.MinerSpec;
import dev.tenbin.eval.nano.NanoSetBuilder;
import dev.tenbin.eval.nano.NanoSettings;
import dev.tenbin.eval.nano.RetrievalMiners;
import dev.tenbin.eval.report.ReportWriter;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.services.Services;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin nano build}: a Nano-set (≤ 200 queries, ≤ 10,000 documents) of a BEIR collection,
 * with judged or mined hard negatives ({@link NanoSetBuilder}).
 */
@Command(
    name = "nano",
    mixinStandardHelpOptions = true,
    description = "Nano-sets: small, fixed evaluation sets built from a BEIR collection.",
    subcommands = {NanoCommand.Build.class})
public final class NanoCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description =
          "Build a Nano-set into a new folder: the drawn queries' positives, then hard negatives"
              + " round-robin across the queries, then filler sampled with the seed; documents"
              + " deduplicated by normalised text; the construction recorded in nano.json.")
  static final class Build implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "New or empty folder for the Nano-set.")
    Path out;

    @Option(
        names = "--seed",
        defaultValue = "42",
        description = "Seed of the query draw and of the filler sample (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
        names = "--max-queries",
        defaultValue = "" + NanoSettings.MAX_QUERIES,
        paramLabel = "N",
        description = "Queries kept, 1..200 (default ${DEFAULT-VALUE}).")
    int maxQueries;

    @Option(
        names = "--max-documents",
        defaultValue = "" + NanoSettings.MAX_DOCUMENTS,
        paramLabel = "N",
        description = "Documents kept, 1..10000 (default ${DEFAULT-VALUE}).")
    int maxDocuments;

    @Option(
        names = "--hard-negatives",
        defaultValue = "auto",
        paramLabel = "SOURCE",
        description =
            "Where hard negatives come from: auto (judged ones, score <= 0, when the kept"
                + " queries' qrels have any, else mined), judged, mined, or both (per query the"
                + " judged first, then the mined). Default ${DEFAULT-VALUE}.")
    String hardNegatives;

    @Option(
        names = "--miners",
        defaultValue = "bm25,dense:" + MinerSpec.DEFAULT_DENSE_MODEL,
        split = ",",
        paramLabel = "MINER",
        description =
            "Miners of mined hard negatives, bm25 and/or dense:MODEL; per query their top"
                + " --mining-depth are pooled, less the positives, by best rank (ties by document"
                + " id). Default ${DEFAULT-VALUE}.")
    List<String> miners = new ArrayList<>();

    @Option(
        names = "--mining-depth",
        defaultValue = "" + NanoSettings.DEFAULT_MINING_DEPTH,
        paramLabel = "K",
        description = "Each miner's top-K per query, 1..1000 (default ${DEFAULT-VALUE}).")
    int miningDepth;

    @Option(
        names = "--language",
        paramLabel = "CODE",
        description =
            "ISO 639-1 language of the BM25 miner's analyzer. Default: detected from the corpus.")
    String language;

    @CommandLine.Mixin ServiceOptions serviceOptions = new ServiceOptions();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      NanoSettings settings =
          new NanoSettings(
              maxQueries,
              maxDocuments,
              seed,
              NanoSettings.HardNegatives.parse(hardNegatives),
              miners.stream().map(MinerSpec::parse).toList(),
              miningDepth);
      var endpoints = serviceOptions.toOptions();
      ReportWriter.prepare(out);
      BeirDataset data = BeirDatasetReader.read(dataset);
      data.warnings().forEach(warning -> err.println("tenbin: warning: " + warning));
      NanoSetBuilder.Summary summary;
      try (Services services = endpoints.connect();
          EmbeddingCache cache = EmbeddingCaches.open(endpoints.cacheDirectory())) {
        summary =
            new NanoSetBuilder()
                .build(
                    data,
                    settings,
                    RetrievalMiners.of(
                        settings.miners(),
                        services,
                        language,
                        cache,
                        EncodeProgress.printingTo(err)),
                    out);
      }
      err.printf(
          "tenbin: Nano-set of %s: %d queries, %d documents (%d positives, %d judged + %d mined"
              + " hard negatives, %d filler, %d duplicates dropped) -> %s%n",
          data.name(),
          summary.queries(),
          summary.documents(),
          summary.positives(),
          summary.judgedNegatives(),
          summary.minedNegatives(),
          summary.filler(),
          summary.duplicatesDropped(),
          out);
      return 0;
    }
  }
}
