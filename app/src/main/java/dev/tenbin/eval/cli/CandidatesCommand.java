package dev.tenbin.eval.cli;

import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.candidates.CandidateSetBuilder;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.Services;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tenbin candidates build}: the fixed candidate sets every reranker is scored on. */
@Command(
    name = "candidates",
    mixinStandardHelpOptions = true,
    description =
        "Fixed candidate sets for reranking (hybrid BM25 + dense RRF with safeguard, and BM25-only).",
    subcommands = {CandidatesCommand.Build.class})
public final class CandidatesCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = "Build both candidate sets of a dataset, once.")
  static final class Build implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(
        names = "--dense-model",
        defaultValue = "bge-small-en-v1.5",
        description = "Dense model of the hybrid set (default ${DEFAULT-VALUE}).")
    String denseModel;

    @Option(names = "--language", paramLabel = "CODE")
    String language;

    @Option(
        names = "--candidates-dir",
        paramLabel = "DIR",
        description =
            "Where the sets go (default: DIR/candidates when the dataset has that folder, else"
                + " CACHE/candidates/NAME-HASH under --cache-dir).")
    Path candidatesDir;

    @Option(names = "--cache-dir", defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}")
    Path cacheDirectory;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      BeirDataset data = BeirDatasetReader.read(dataset);
      Path directory =
          candidatesDir != null
              ? candidatesDir
              : CandidateSet.defaultDirectory(dataset, cacheDirectory);
      try (Services services = Services.connect(null, null, cacheDirectory)) {
        String lang = IndexLanguage.resolve(services.index(), language, data::textSample).code();
        for (CandidateSet set :
            new CandidateSetBuilder(services.index(), services.encoder(), err)
                .build(data, lang, denseModel)) {
          Path file = CandidateSet.file(directory, set.kind());
          set.write(file);
          long safeguards = set.queries().stream().filter(q -> q.safeguard() != null).count();
          err.printf(
              "tenbin: %s candidate set of %s: %d queries, %d safeguard positives -> %s%n",
              set.kind(), data.name(), set.queries().size(), safeguards, file);
        }
      }
      return 0;
    }
  }
}
