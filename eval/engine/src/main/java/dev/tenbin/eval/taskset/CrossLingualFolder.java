package dev.tenbin.eval.taskset;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A cross-lingual task from parallel collections: the queries of one BEIR folder against the
 * corpus, qrels and spans of another (same query ids), e.g. xquad-de's questions against
 * xquad-en-long. It is assembled as a BEIR folder of its own under the cache, named {@code
 * <corpus>__q-<queries>}: the corpus folder's files linked, the other folder's {@code
 * queries.jsonl} copied, so everything downstream reads one format and the dataset fingerprint
 * covers the queries actually used (cells of en→en and de→en never share).
 */
public final class CrossLingualFolder {
  private CrossLingualFolder() {}

  /**
   * The assembled folder under {@code cacheDirectory/cross-lingual}; {@code queries} is a folder
   * holding {@code queries.jsonl} or that file itself.
   */
  public static Path assemble(Path corpus, Path queries, Path cacheDirectory) {
    Path queriesFile = Files.isDirectory(queries) ? queries.resolve("queries.jsonl") : queries;
    if (!Files.isRegularFile(queriesFile)) {
      throw new InvalidInputException("--queries", "no queries.jsonl at " + queries);
    }
    if (!Files.isDirectory(corpus)) {
      throw new InvalidInputException("--dataset", "dataset folder not found: " + corpus);
    }
    String name =
        name(corpus)
            + "__q-"
            + name(Files.isDirectory(queries) ? queries : queries.toAbsolutePath().getParent());
    Path folder = cacheDirectory.resolve("cross-lingual").resolve(name);
    try {
      Files.createDirectories(folder.resolve("qrels"));
      link(corpus.resolve("corpus.jsonl"), folder.resolve("corpus.jsonl"));
      // Every split's qrels and the spans, so --split works on the assembled folder too.
      java.util.Set<String> linked = new java.util.HashSet<>();
      for (String qrels : BeirDatasetReader.qrelsFiles(corpus)) {
        link(corpus.resolve("qrels").resolve(qrels), folder.resolve("qrels").resolve(qrels));
        linked.add(qrels);
      }
      for (String stale : BeirDatasetReader.qrelsFiles(folder)) {
        if (!linked.contains(stale)) {
          Files.deleteIfExists(folder.resolve("qrels").resolve(stale));
        }
      }
      Path partial = Files.createTempFile(folder, "queries", ".partial");
      Files.copy(queriesFile, partial, StandardCopyOption.REPLACE_EXISTING);
      Files.move(
          partial,
          folder.resolve("queries.jsonl"),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot assemble " + folder, e);
    }
    return folder;
  }

  private static String name(Path folder) {
    return folder.toAbsolutePath().normalize().getFileName().toString();
  }

  private static void link(Path target, Path link) throws IOException {
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, target.toAbsolutePath().normalize());
  }
}
