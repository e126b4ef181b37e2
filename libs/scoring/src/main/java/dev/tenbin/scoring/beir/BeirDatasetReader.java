package dev.tenbin.scoring.beir;

import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.text.WhitespaceSplit;
import dev.tenbin.scoring.trec.QrelsReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a BEIR-format folder. Missing or corrupt files and an empty corpus are errors, as are ids
 * that are not {@link dev.tenbin.scoring.trec.RecordIds valid ids} (runs and qrels could not name
 * them) and titles or texts that are not strings, as is a malformed {@code qrels/spans.tsv}; qrels
 * that name queries or documents absent from the files are counted and reported as warnings, as
 * real collections have them.
 */
public final class BeirDatasetReader {
  /** The optional span qrels, beside {@code test.tsv}: see {@link SpanQrelsReader}. */
  public static final String SPANS_FILE = "spans.tsv";

  /** The split evaluated unless another is asked for: {@code qrels/test.tsv}. */
  public static final String DEFAULT_SPLIT = "test";

  private BeirDatasetReader() {}

  /** Reads the folder with the qrels of the default split, {@code qrels/test.tsv}. */
  public static BeirDataset read(Path directory) {
    return read(directory, DEFAULT_SPLIT);
  }

  /**
   * Reads the folder with the qrels of {@code split} ({@code qrels/<split>.tsv}, e.g. dev, test or
   * train); a missing split is an error naming the splits the folder has. The answer spans ({@code
   * qrels/spans.tsv}) belong to the test split and are read with it only.
   */
  public static BeirDataset read(Path directory, String split) {
    if (!Files.isDirectory(directory)) {
      throw new DatasetException("dataset folder not found: " + directory);
    }
    Path corpusFile = corpusFile(directory);
    Path queriesFile = directory.resolve("queries.jsonl");
    Path qrelsFile = qrelsFile(directory, split);
    if (!split.equals(DEFAULT_SPLIT) && !Files.isRegularFile(qrelsFile)) {
      throw new DatasetException(
          "no split '"
              + split
              + "' in "
              + directory
              + ": qrels/"
              + split
              + ".tsv is missing; splits present: "
              + describe(splits(directory)));
    }
    for (Path required : List.of(corpusFile, queriesFile, qrelsFile)) {
      if (!Files.isRegularFile(required)) {
        throw new DatasetException(
            "missing "
                + directory.relativize(required)
                + " in "
                + directory
                + " (a BEIR folder has corpus.jsonl or corpus.jsonl.gz, queries.jsonl and"
                + " qrels/test.tsv)"
                + (required.equals(qrelsFile) && !splits(directory).isEmpty()
                    ? "; splits present: "
                        + describe(splits(directory))
                        + " (choose one with --split, or split: in a task set)"
                    : ""));
      }
    }
    Map<String, String> queries = readQueries(queriesFile);
    Qrels qrels;
    try {
      qrels = QrelsReader.read(qrelsFile);
    } catch (IllegalArgumentException e) {
      throw new DatasetException(e.getMessage(), e);
    }
    // One walk checks the corpus and keeps only the judged documents (for the spans).
    Set<String> judged = new HashSet<>();
    for (String queryId : qrels.queryIds()) {
      judged.addAll(qrels.judgments(queryId).keySet());
    }
    Map<String, CorpusDocument> judgedDocuments = new HashMap<>();
    CorpusFile corpus = checkCorpus(corpusFile, judged, judgedDocuments);
    if (corpus.isEmpty()) {
      throw new DatasetException("empty corpus: " + corpusFile + " holds no documents");
    }

    List<String> warnings = new ArrayList<>();
    int unknownQueries = 0;
    int unknownDocs = 0;
    for (String queryId : qrels.queryIds()) {
      if (!queries.containsKey(queryId)) {
        unknownQueries++;
      }
      for (String docId : qrels.judgments(queryId).keySet()) {
        if (!judgedDocuments.containsKey(docId)) {
          unknownDocs++;
        }
      }
    }
    if (unknownQueries > 0) {
      warnings.add(
          unknownQueries
              + " judged queries in qrels/"
              + split
              + ".tsv are absent from queries.jsonl (ignored)");
    }
    if (unknownDocs > 0) {
      warnings.add(
          unknownDocs
              + " judgments in qrels/"
              + split
              + ".tsv name documents absent from corpus.jsonl"
              + " (they count as relevant documents never retrieved)");
    }
    List<String> evaluated = new ArrayList<>();
    for (String queryId : queries.keySet()) {
      if (qrels.relevantCount(queryId) > 0) {
        evaluated.add(queryId);
      }
    }
    if (evaluated.isEmpty()) {
      throw new DatasetException(
          "no query of " + queriesFile + " has a relevant judgment in " + qrelsFile);
    }
    SpanQrels spans = SpanQrels.none();
    Path spansFile = directory.resolve("qrels").resolve(SPANS_FILE);
    if (split.equals(DEFAULT_SPLIT) && Files.isRegularFile(spansFile)) {
      spans = SpanQrelsReader.read(spansFile, queries, judgedDocuments, qrels);
    }
    String name = directory.toAbsolutePath().normalize().getFileName().toString();
    return new BeirDataset(
        name, directory, corpus, queries, qrels, spans, evaluated, warnings, split);
  }

  /** {@code qrels/<split>.tsv} of the folder; the split must be a plain file name. */
  public static Path qrelsFile(Path directory, String split) {
    if (split.isEmpty()
        || split.equals(SPANS_FILE.replace(".tsv", ""))
        || !split.matches("[A-Za-z0-9._-]+")
        || split.startsWith(".")) {
      throw new DatasetException(
          "invalid split '" + split + "': a qrels file name such as dev, test or train");
    }
    return directory.resolve("qrels").resolve(split + ".tsv");
  }

  /** The splits of a folder: the names of its {@code qrels/*.tsv} but the spans, sorted. */
  public static List<String> splits(Path directory) {
    return qrelsFiles(directory).stream()
        .filter(file -> !file.equals(SPANS_FILE))
        .map(file -> file.substring(0, file.length() - ".tsv".length()))
        .toList();
  }

  /** The names of the {@code .tsv} files in a folder's {@code qrels/}, sorted; none without one. */
  public static List<String> qrelsFiles(Path directory) {
    Path qrels = directory.resolve("qrels");
    if (!Files.isDirectory(qrels)) {
      return List.of();
    }
    try (var files = Files.list(qrels)) {
      return files
          .filter(Files::isRegularFile)
          .map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".tsv"))
          .sorted()
          .toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot list " + qrels, e);
    }
  }

  private static String describe(List<String> splits) {
    return splits.isEmpty() ? "none" : String.join(", ", splits);
  }

  /**
   * The folder's corpus file: {@code corpus.jsonl}, or {@code corpus.jsonl.gz} when only that is
   * there; both at once is an error (which one is the collection?).
   */
  public static Path corpusFile(Path directory) {
    Path plain = directory.resolve("corpus.jsonl");
    Path gzipped = directory.resolve("corpus.jsonl.gz");
    boolean hasPlain = Files.isRegularFile(plain);
    if (hasPlain && Files.isRegularFile(gzipped)) {
      throw new DatasetException(
          directory + " holds both corpus.jsonl and corpus.jsonl.gz: keep one of them");
    }
    return hasPlain || !Files.isRegularFile(gzipped) ? plain : gzipped;
  }

  /**
   * Walks the corpus once: every id valid and unique, every title and text a string. Memory stays
   * in the size of one document plus 8 bytes a document (a 64-bit hash of each id: ids whose hashes
   * collide are compared exactly in a second walk), plus the judged documents, kept in {@code
   * judgedDocuments}.
   */
  private static CorpusFile checkCorpus(
      Path file, Set<String> judged, Map<String, CorpusDocument> judgedDocuments) {
    long[][] hashes = {new long[1 << 10]};
    int[] count = {0};
    long[] words = {0};
    JsonlReader.read(
        file,
        (node, line) -> {
          CorpusDocument document = CorpusFile.document(node, file, line);
          words[0] += WhitespaceSplit.count(document.titleAndText());
          if (count[0] == hashes[0].length) {
            hashes[0] = java.util.Arrays.copyOf(hashes[0], hashes[0].length * 2);
          }
          hashes[0][count[0]++] = idHash(document.id());
          if (judged.contains(document.id())) {
            judgedDocuments.putIfAbsent(document.id(), document);
          }
        });
    long[] sorted = java.util.Arrays.copyOf(hashes[0], count[0]);
    hashes[0] = null;
    java.util.Arrays.sort(sorted);
    Set<Long> colliding = new HashSet<>();
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        colliding.add(sorted[i]);
      }
    }
    if (!colliding.isEmpty()) {
      Set<String> seen = new HashSet<>();
      JsonlReader.read(
          file,
          (node, line) -> {
            String id = JsonlReader.requiredId(node, "_id", file, line);
            if (colliding.contains(idHash(id)) && !seen.add(id)) {
              throw new DatasetException(file + " line " + line + ": duplicate \"_id\" " + id);
            }
          });
    }
    return new CorpusFile(file, count[0], words[0]);
  }

  /** A 64-bit hash of an id (FNV-1a over its UTF-16 units, then a final mix). */
  private static long idHash(String id) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < id.length(); i++) {
      h ^= id.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return h;
  }

  private static Map<String, String> readQueries(Path file) {
    Map<String, String> queries = new LinkedHashMap<>();
    JsonlReader.read(
        file,
        (node, line) -> {
          String id = JsonlReader.requiredId(node, "_id", file, line);
          if (queries.putIfAbsent(id, JsonlReader.requiredText(node, "text", file, line)) != null) {
            throw new DatasetException(file + " line " + line + ": duplicate \"_id\" " + id);
          }
        });
    if (queries.isEmpty()) {
      throw new DatasetException("no queries in " + file);
    }
    return queries;
  }
}
