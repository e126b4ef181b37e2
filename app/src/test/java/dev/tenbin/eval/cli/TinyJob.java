package dev.tenbin.eval.cli;

import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What job tests start from: the {@link TinyBeir} collection at {@code data/tiny}, the tiny dense
 * model {@code tiny-dense} under {@code models/}, and {@code tasks.yaml}, a task set naming the
 * collection as task {@code tiny}.
 */
final class TinyJob {
  private TinyJob() {}

  /** Writes the three under {@code root}; returns the collection's folder. */
  static Path write(Path root) throws IOException {
    Path data = TinyBeir.write(root.resolve("data").resolve("tiny"));
    TinyModels.dense(models(root), "tiny-dense", false);
    Files.writeString(
        root.resolve("tasks.yaml"),
        """
        name: tiny-bench
        tasks:
          - name: tiny
            language: en
            domain: fruit
            source: {path: data/tiny}
        """);
    return data;
  }

  /**
   * {@code tenbin run spec --out out --models-dir <models of root> --cache-dir cache --progress
   * lines}, then {@code more}.
   */
  static CliRunner run(Path root, Path spec, Path out, Path cache, String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "run",
                spec.toString(),
                "--out",
                out.toString(),
                "--models-dir",
                models(root).toString(),
                "--cache-dir",
                cache.toString(),
                "--progress",
                "lines"));
    args.addAll(java.util.List.of(more));
    return CliRunner.run(args.toArray(String[]::new));
  }

  /** The models folder of {@link #write}. */
  static Path models(Path root) {
    return root.resolve("models");
  }
}
