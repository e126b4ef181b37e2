package dev.tenbin.eval.cli;

import dev.tenbin.eval.job.ConsoleJobProgress;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.services.Services;
import dev.tenbin.proto.encoder.v1.LightCache;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tenbin light build}: the LightRetriever token-embedding cache of a dense model. */
@Command(
    name = "light",
    mixinStandardHelpOptions = true,
    description = "LightRetriever: build the token-embedding cache a model's light queries need.",
    subcommands = {LightCommand.Build.class})
public final class LightCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = {
        "Encode every vocabulary token in the model's query prompt; resumes after an interruption.",
        "The encoder builds the cache in its own cache directory (the embedded one, or --encoder-endpoint)."
      })
  static final class Build implements Callable<Integer> {
    @Option(names = "--model", required = true)
    String model;

    @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
    ServiceOptions serviceOptions = new ServiceOptions();

    @Option(names = "--fp16", description = "Store rows in FP16 (half the size).")
    boolean fp16;

    @Option(
        names = "--int8",
        description = "Store rows as int8 with a per-row FP32 scale (about a quarter of the size).")
    boolean int8;

    @Option(
        names = "--dimensions",
        defaultValue = "0",
        description =
            "Build the table at a width below the model's, e.g. a Matryoshka dimension of its card"
                + " (each token's row truncated and normalised at that width); 0 = the full dimension.")
    int dimensions;

    @Option(names = "--batch-size", defaultValue = "256")
    int batchSize;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      if (fp16 && int8) {
        err.println("tenbin: choose one of --fp16 and --int8");
        return 2;
      }
      var endpoints = serviceOptions.toOptions();
      LightCache cache;
      // A bar updated in place on a terminal; into a file or a pipe, a line per tenth done.
      boolean terminal = ConsoleJobProgress.interactiveTerminal();
      ProgressBar[] bar = {null};
      int[] printedTenth = {-1};
      try (Services services = endpoints.connect()) {
        cache =
            services
                .encoder()
                .buildLightCache(
                    model,
                    int8
                        ? LightCacheDtype.LIGHT_CACHE_DTYPE_INT8
                        : fp16
                            ? LightCacheDtype.LIGHT_CACHE_DTYPE_FP16
                            : LightCacheDtype.LIGHT_CACHE_DTYPE_FP32,
                    dimensions,
                    batchSize,
                    (done, vocabulary) -> {
                      if (!terminal) {
                        printTenth(err, done, vocabulary, printedTenth);
                        return;
                      }
                      if (bar[0] == null) {
                        bar[0] =
                            new ProgressBarBuilder()
                                .setTaskName("LightRetriever " + model)
                                .setInitialMax(vocabulary)
                                .setStyle(ProgressBarStyle.ASCII)
                                .build();
                      }
                      bar[0].stepTo(done);
                    });
      } finally {
        if (bar[0] != null) {
          bar[0].close();
        }
      }
      err.printf(
          "tenbin: cache of %s: %d x %d %s in %s%n",
          model,
          cache.getVocabularySize(),
          cache.getDimension(),
          switch (cache.getDtype()) {
            case LIGHT_CACHE_DTYPE_FP16 -> "fp16";
            case LIGHT_CACHE_DTYPE_INT8 -> "int8";
            default -> "fp32";
          },
          cache.getLocation());
      return 0;
    }

    /** Prints {@code done/vocabulary} when a new tenth of the vocabulary is done. */
    static void printTenth(PrintWriter err, long done, long vocabulary, int[] printedTenth) {
      int tenth = vocabulary <= 0 ? 10 : (int) (done * 10 / vocabulary);
      if (tenth > printedTenth[0]) {
        printedTenth[0] = tenth;
        err.printf("tenbin: LightRetriever tokens encoded: %d/%d%n", done, vocabulary);
        err.flush();
      }
    }
  }
}
