package dev.tenbin.eval.taskset;

import dev.tenbin.scoring.beir.BeirDataset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A task with its collection read into memory.
 *
 * @param task the task as declared
 * @param dataset the collection, read from a BEIR folder (a hub task's is materialised in the
 *     cache)
 * @param datasetSha the collection's identity: the content fingerprint of a local folder, or {@code
 *     hub:{repo}@{sha}/{split}} for a hub dataset
 * @param provenance where the data came from, as key/value pairs (source, path or repository,
 *     revision, resolved sha, split, files), in a stable order
 */
public record LoadedTask(
    TaskSpec task, BeirDataset dataset, String datasetSha, Map<String, String> provenance) {
  public LoadedTask {
    provenance = Collections.unmodifiableMap(new LinkedHashMap<>(provenance));
  }
}
