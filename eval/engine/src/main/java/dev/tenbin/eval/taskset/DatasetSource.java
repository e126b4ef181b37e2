package dev.tenbin.eval.taskset;

import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Where a task's collection comes from: a local BEIR folder or a pinned Hugging Face dataset. */
public sealed interface DatasetSource {

  /** One line for people, e.g. {@code hub:zeta-alpha-ai/NanoSciFact@main (split train)}. */
  String describe();

  /**
   * A BEIR-format folder on disk ({@code corpus.jsonl}, {@code queries.jsonl}, {@code
   * qrels/test.tsv}).
   *
   * @param directory absolute, with {@code ~} and {@code ${ENV}} expanded
   * @param split the qrels read, {@code qrels/<split>.tsv}; {@code test} unless the task set's
   *     {@code source.split} names another
   */
  record LocalBeir(Path directory, String split) implements DatasetSource {
    /** The folder with its default split. */
    public LocalBeir(Path directory) {
      this(directory, BeirDatasetReader.DEFAULT_SPLIT);
    }

    @Override
    public String describe() {
      return "local:"
          + directory
          + (split.equals(BeirDatasetReader.DEFAULT_SPLIT) ? "" : " (split " + split + ")");
    }
  }

  /**
   * A dataset repository on a Hugging Face hub, at a pinned revision.
   *
   * @param repository {@code owner/name}
   * @param revision a branch, tag or 40-hex commit SHA (only a SHA is fully reproducible)
   * @param split the split that holds this task, e.g. {@code train} or {@code NanoSciFact}
   * @param configs role ({@code corpus}, {@code queries}, {@code qrels}, and the optional {@code
   *     spans}) to the config (folder) name in the repository; a role not named keeps its own name
   * @param format {@code parquet} or {@code jsonl} to only consider files of that format, or empty
   *     to detect it from the repository's files
   */
  record HubDataset(
      String repository, String revision, String split, Map<String, String> configs, String format)
      implements DatasetSource {

    /** The roles a BEIR collection is made of, in the order they are read. */
    public static final List<String> ROLES = List.of("corpus", "queries", "qrels");

    /**
     * Roles a repository may leave out: {@code spans}, the answer spans of PosIR-style collections
     * (columns {@code query-id}/{@code query_id}, {@code corpus-id}/{@code corpus_id}, {@code
     * start}, {@code end}; written to {@code qrels/spans.tsv}).
     */
    public static final List<String> OPTIONAL_ROLES = List.of("spans");

    /** Every role, required ones first. */
    public static List<String> allRoles() {
      return java.util.stream.Stream.concat(ROLES.stream(), OPTIONAL_ROLES.stream()).toList();
    }

    public HubDataset {
      configs = Map.copyOf(configs);
    }

    /** The config name of {@code role}; the role itself when not remapped. */
    public String config(String role) {
      return configs.getOrDefault(role, role);
    }

    @Override
    public String describe() {
      return "hub:" + repository + "@" + revision + " (split " + split + ")";
    }
  }
}
