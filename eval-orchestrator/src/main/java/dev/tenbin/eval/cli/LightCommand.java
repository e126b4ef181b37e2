package dev.tenbin.eval.cli;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.EncoderServiceConfig;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.light.CacheManifest;
import dev.tenbin.encoder.light.TokenEmbeddingCache;
import java.io.PrintWriter;
import java.nio.file.Path;
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
      description = "Encode every vocabulary token in the model's query prompt; resumes after an interruption.")
  static final class Build implements Callable<Integer> {
    @Option(names = "--model", required = true) String model;

    @Option(names = "--cache-dir", defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}") Path cacheDirectory;

    @Option(names = "--fp16", description = "Store rows in FP16 (half the size).") boolean fp16;

    @Option(names = "--batch-size", defaultValue = "256") int batchSize;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      try (EncoderCore core = new EncoderCore(EncoderServiceConfig.embedded(Path.of("models"), cacheDirectory))) {
        LoadedModel loaded = core.model(model);
        Path folder = TokenEmbeddingCache.folder(cacheDirectory, loaded.card());
        int vocabulary = TokenEmbeddingCache.vocabularySize(loaded.tokenizerJson());
        CacheManifest manifest;
        try (ProgressBar bar =
            new ProgressBarBuilder()
                .setTaskName("LightRetriever " + model)
                .setInitialMax(vocabulary)
                .setStyle(ProgressBarStyle.ASCII)
                .build()) {
          manifest = TokenEmbeddingCache.build(loaded, folder, 2048, batchSize, 0, fp16, bar::stepTo);
        }
        err.printf("tenbin: cache of %s: %d x %d %s in %s%n", model, manifest.vocabularySize(), manifest.dimension(), manifest.dtype(), folder);
      }
      return 0;
    }
  }
}
