package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.aggregate.NanoFidelity;
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
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
    subcommands = {NanoCommand.Build.class, NanoCommand.Fidelity.class})
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

    @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
    ServiceOptions serviceOptions = new ServiceOptions();

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

  @Command(
      name = "fidelity",
      mixinStandardHelpOptions = true,
      description = {
        "Whether a Nano-set ranks systems as its full collection does: the systems of a job run on"
            + " the Nano-set against the same systems of a job run on the full collection; Kendall"
            + " tau-b and Spearman rho of their scores, the pairs ordered the same, the top-k"
            + " agreement, and per system the difference Nano - full with its paired 95%% interval"
            + " over the queries both evaluated.",
        "--record NANO_DIR stores the result as fidelity.json beside the Nano-set's nano.json."
      })
  static final class Fidelity implements Callable<Integer> {
    @Option(
        names = "--nano",
        required = true,
        paramLabel = "DIR",
        description = "Job output folder of the run on the Nano-set.")
    Path nanoJob;

    @Option(
        names = "--full",
        required = true,
        paramLabel = "DIR",
        description = "Job output folder of the run on the full collection.")
    Path fullJob;

    @Option(
        names = "--nano-task",
        paramLabel = "TASK",
        description = "The Nano-set's task in --nano (needed when it holds several).")
    String nanoTask;

    @Option(
        names = "--full-task",
        paramLabel = "TASK",
        description = "The full collection's task in --full (needed when it holds several).")
    String fullTask;

    @Option(
        names = "--metric",
        defaultValue = "ndcg@10",
        paramLabel = "METRIC",
        description = "The metric compared (default ${DEFAULT-VALUE}).")
    String metric;

    @Option(
        names = "--top",
        defaultValue = "3",
        paramLabel = "K",
        description = "The k of the top-k agreement (default ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--json", description = "Print the comparison as one JSON object.")
    boolean json;

    @Option(
        names = "--record",
        paramLabel = "NANO_DIR",
        description = "The Nano-set's folder (holding nano.json): write fidelity.json there.")
    Path record;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (top < 1) {
        throw new InvalidInputException("--top", "--top must be 1 or more, got " + top);
      }
      if (record != null && !java.nio.file.Files.isRegularFile(record.resolve("nano.json"))) {
        throw new InvalidInputException(
            "--record", "--record " + record + " holds no nano.json: it is not a Nano-set folder");
      }
      List<CellRecord> nanoCells =
          ResultStore.existing(nanoJob, "--nano").readAll(ResultStore.Rankings.LEFT_IN_FILE);
      List<CellRecord> fullCells =
          ResultStore.existing(fullJob, "--full").readAll(ResultStore.Rankings.LEFT_IN_FILE);
      NanoFidelity fidelity =
          NanoFidelity.compare(nanoCells, fullCells, nanoTask, fullTask, metric, top);
      ObjectNode tree = toJson(fidelity);
      // Which Nano-set this was measured on: a job on the folder carries the record into its
      // leaderboards only while the folder still holds that collection.
      nanoCells.stream()
          .filter(c -> c.key().task().equals(fidelity.nanoTask()))
          .map(c -> c.versions().get("dataset_sha"))
          .filter(java.util.Objects::nonNull)
          .findFirst()
          .ifPresent(sha -> tree.put("nano_dataset_sha", sha));
      if (record != null) {
        try {
          java.nio.file.Files.writeString(
              record.resolve("fidelity.json"),
              tree.toPrettyString() + "\n",
              java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException("cannot write " + record, e);
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(json ? tree + "\n" : text(fidelity));
      out.flush();
      return 0;
    }

    static String text(NanoFidelity f) {
      StringBuilder out = new StringBuilder();
      out.append(
          String.format(
              Locale.ROOT,
              "%s against %s, %s ×100, %d systems%n",
              f.nanoTask().id(),
              f.fullTask().id(),
              f.metric(),
              f.systems().size()));
      out.append(
          String.format(
              Locale.ROOT,
              "Kendall tau-b %s, Spearman rho %s; %d of %d pairs ordered the same; top %d: %d"
                  + " shared%n",
              number(f.kendallTau()),
              number(f.spearman()),
              f.pairsAgreeing(),
              f.pairs(),
              f.topK(),
              f.topKShared()));
      int width =
          Math.max(6, f.systems().stream().mapToInt(s -> s.row().id().length()).max().orElse(0));
      out.append(
          String.format(
              Locale.ROOT,
              "%-" + width + "s  %6s  %6s  %9s  %7s  %-17s  %7s%n",
              "system",
              "nano",
              "full",
              "rank n/f",
              "Δ",
              "95% CI of Δ",
              "queries"));
      for (NanoFidelity.SystemFidelity s : f.systems()) {
        out.append(
            String.format(
                Locale.ROOT,
                "%-" + width + "s  %6.2f  %6.2f  %9s  %+7.2f  %-17s  %7d%n",
                s.row().id(),
                s.nano(),
                s.full(),
                s.nanoRank() + "/" + s.fullRank(),
                s.delta(),
                s.deltaInterval() == null
                    ? "–"
                    : String.format(
                        Locale.ROOT,
                        "%+.2f to %+.2f",
                        s.deltaInterval().low(),
                        s.deltaInterval().high()),
                s.sharedQueries()));
      }
      return out.toString();
    }

    private static String number(double value) {
      return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.3f", value);
    }

    static ObjectNode toJson(NanoFidelity f) {
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("nano_task", f.nanoTask().id());
      root.put("full_task", f.fullTask().id());
      root.put("metric", f.metric());
      root.put("kendall_tau_b", Double.isNaN(f.kendallTau()) ? null : f.kendallTau());
      root.put("spearman", Double.isNaN(f.spearman()) ? null : f.spearman());
      root.put("pairs_ordered_the_same", f.pairsAgreeing());
      root.put("pairs", f.pairs());
      root.put("top_k", f.topK());
      root.put("top_k_shared", f.topKShared());
      ArrayNode systems = root.putArray("systems");
      for (NanoFidelity.SystemFidelity s : f.systems()) {
        ObjectNode node = systems.addObject();
        node.put("row", s.row().id());
        node.put("nano", s.nano());
        node.put("full", s.full());
        node.put("nano_rank", s.nanoRank());
        node.put("full_rank", s.fullRank());
        node.put("shared_queries", s.sharedQueries());
        node.put("delta", Double.isNaN(s.delta()) ? null : s.delta());
        if (s.deltaInterval() == null) {
          node.putNull("delta_interval");
        } else {
          node.putArray("delta_interval")
              .add(s.deltaInterval().low())
              .add(s.deltaInterval().high());
        }
      }
      return root;
    }
  }
}
