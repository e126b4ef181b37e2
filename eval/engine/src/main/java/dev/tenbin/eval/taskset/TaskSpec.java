package dev.tenbin.eval.taskset;

/**
 * One task of a task set: a retrieval collection evaluated on its own.
 *
 * @param name unique within the set, e.g. {@code NanoSciFact} or {@code xquad-de}
 * @param dataset the dataset the task belongs to; defaults to {@code name}. Tasks that share it
 *     (one per language of a parallel collection, say) are averaged together first when results are
 *     averaged hierarchically
 * @param language ISO 639-1 code of the corpus, or {@link #AUTO_LANGUAGE} to detect it from the
 *     corpus when the task is evaluated
 * @param domain a free-text category such as {@code science} or {@code web search}; empty when
 *     absent
 * @param citation how to cite the task's collection; empty when absent
 * @param source where the data comes from
 * @param queries a folder (or {@code queries.jsonl}) whose queries replace the source's: a
 *     cross-lingual task of parallel collections (see {@code CrossLingualFolder}); null for none
 * @param lengthReference the task of the same set whose documents' lengths set this task's
 *     position-analysis buckets (same document ids; e.g. the source language of a translation, so a
 *     query falls in the same bucket in every language); null to count its own
 */
public record TaskSpec(
    String name,
    String dataset,
    String language,
    String domain,
    String citation,
    DatasetSource source,
    java.nio.file.Path queries,
    String lengthReference) {

  /** A task that evaluates its source's own queries. */
  public TaskSpec(
      String name,
      String dataset,
      String language,
      String domain,
      String citation,
      DatasetSource source) {
    this(name, dataset, language, domain, citation, source, null, null);
  }

  /** The language value that asks for detection from the corpus. */
  public static final String AUTO_LANGUAGE = "auto";

  /** Whether the language is to be detected from the corpus. */
  public boolean detectsLanguage() {
    return AUTO_LANGUAGE.equals(language);
  }
}
