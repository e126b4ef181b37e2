package dev.tenbin.eval.job;

import dev.tenbin.eval.dataset.BeirDataset;
import java.util.Map;

/**
 * One task of a job, loaded: which benchmark it belongs to, its data and their fingerprint.
 *
 * @param benchmark the task set's name
 * @param dataset the dataset the task belongs to (shared by the languages of one dataset)
 * @param task the task's name, unique in its benchmark
 * @param language the resolved ISO 639-1 code (never "auto")
 * @param domain the domain category, "" when unknown
 * @param data the collection
 * @param datasetSha the content fingerprint (local) or "hub:repo@sha/split" (hub)
 * @param provenance where the data came from (path, hub repository, requested and resolved
 *     revision)
 */
public record JobTask(
    String benchmark,
    String dataset,
    String task,
    String language,
    String domain,
    BeirDataset data,
    String datasetSha,
    Map<String, String> provenance) {}
