package dev.tenbin.eval.taskset;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The files of one task of a hub dataset, downloaded at a resolved commit.
 *
 * @param repository {@code owner/name}
 * @param revision the revision asked for
 * @param sha the commit it resolved to
 * @param directory the snapshot folder, {@code {cache}/datasets/{owner}/{name}/{sha}}
 * @param files role ({@code corpus}, {@code queries}, {@code qrels}, and {@code spans} when the
 *     repository has them) to its local files, in order
 * @param hubPaths role to the files' paths in the repository, in the same order
 */
public record HubSnapshot(
    String repository,
    String revision,
    String sha,
    Path directory,
    Map<String, List<Path>> files,
    Map<String, List<String>> hubPaths) {

  public HubSnapshot {
    files = Map.copyOf(files);
    hubPaths = Map.copyOf(hubPaths);
  }
}
