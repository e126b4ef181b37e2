package dev.tenbin.eval.taskset;

import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Loads the collection of a task. A local BEIR folder is read as it is, identified by its content
 * fingerprint. A hub dataset is fetched by a {@link HubDatasetClient} and materialised once as a
 * BEIR folder under {@code {cache}/datasets/{repo}/{sha}/beir/{split}/}, identified as {@code
 * hub:{repo}@{sha}/{split}}.
 */
public final class TaskLoader {
  private final Path cacheDirectory;
  private final HubDatasetClient hub;

  public TaskLoader(Path cacheDirectory, HubDatasetClient hub) {
    this.cacheDirectory = cacheDirectory;
    this.hub = hub;
  }

  /** Reads (and for hub tasks first downloads) the collection of {@code task} of {@code spec}. */
  public LoadedTask load(TaskSetSpec spec, TaskSpec task) {
    Map<String, String> provenance = new LinkedHashMap<>();
    provenance.put("task_set", spec.name());
    return switch (task.source()) {
      case LocalBeir local -> {
        Path folder = withQueries(task, local.directory(), provenance);
        BeirDataset dataset = BeirDatasetReader.read(folder, local.split());
        provenance.put("source", "local");
        provenance.put("path", local.directory().toString());
        if (!dataset.isDefaultSplit()) {
          provenance.put("split", local.split());
        }
        yield new LoadedTask(
            task, dataset, DatasetFingerprint.of(folder, local.split()), provenance);
      }
      case HubDataset source -> {
        HubSnapshot snapshot = hub.fetch(source);
        Path folder =
            cacheDirectory
                .resolve("datasets")
                .resolve(source.repository())
                .resolve(snapshot.sha())
                .resolve("beir")
                .resolve(source.split());
        if (!BeirFolderWriter.isComplete(folder)) {
          BeirFolderWriter.write(snapshot, folder);
        }
        provenance.put("source", "hub");
        provenance.put("endpoint", hub.endpoint());
        provenance.put("repository", source.repository());
        provenance.put("revision", source.revision());
        provenance.put("sha", snapshot.sha());
        provenance.put("split", source.split());
        for (String role : HubDataset.allRoles()) {
          List<String> paths = snapshot.hubPaths().getOrDefault(role, List.of());
          if (!paths.isEmpty() || HubDataset.ROLES.contains(role)) {
            provenance.put(role + "_files", join(paths));
          }
        }
        provenance.put("path", folder.toString());
        Path read = withQueries(task, folder, provenance);
        String datasetSha =
            read.equals(folder)
                ? "hub:" + source.repository() + "@" + snapshot.sha() + "/" + source.split()
                : DatasetFingerprint.of(read);
        yield new LoadedTask(task, BeirDatasetReader.read(read), datasetSha, provenance);
      }
    };
  }

  /**
   * {@code folder}, or for a task with {@code queries:} the cross-lingual folder of those queries
   * against it (recorded in the provenance).
   */
  private Path withQueries(TaskSpec task, Path folder, Map<String, String> provenance) {
    if (task.queries() == null) {
      return folder;
    }
    provenance.put("queries", task.queries().toString());
    return CrossLingualFolder.assemble(folder, task.queries(), cacheDirectory);
  }

  /** Loads every task of {@code spec}, in order. */
  public List<LoadedTask> loadAll(TaskSetSpec spec) {
    return spec.tasks().stream().map(task -> load(spec, task)).toList();
  }

  private static String join(List<String> paths) {
    return paths.stream().collect(Collectors.joining(","));
  }
}
