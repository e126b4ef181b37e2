package dev.tenbin.eval.dataset;

import dev.tenbin.eval.metrics.Qrels;
import dev.tenbin.eval.run.QrelsReader;
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
 * that are not {@link dev.tenbin.eval.run.RecordIds valid ids} (runs and qrels could not name them)
 * and titles or texts that are not strings, as is a malformed {@code qrels/spans.tsv}; qrels that
 * name queries or documents absent from the files are counted and reported as warnings, as real
 * collections have them.
 */
public final class BeirDatasetReader {
  /** The optional span qrels, beside {@code test.tsv}: see {@link SpanQrelsReader}. */
  public static final String SPANS_FILE = "spans.tsv";

  private BeirDatasetReader() {}

  public static BeirDataset read(Path directory) {
    if (!Files.isDirectory(directory)) {
      throw new DatasetException("dataset folder not found: " + directory);
    }
    Path corpusFile = directory.resolve("corpus.jsonl");
    Path queriesFile = directory.resolve("queries.jsonl");
    Path qrelsFile = directory.resolve("qrels").resolve("test.tsv");
    for (Path required : List.of(corpusFile, queriesFile, qrelsFile)) {
      if (!Files.isRegularFile(required)) {
        throw new DatasetException(
            "missing "
                + directory.relativize(required)
                + " in "
                + directory
                + " (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/test.tsv)");
      }
    }
    List<CorpusDocument> corpus = readCorpus(corpusFile);
    if (corpus.isEmpty()) {
      throw new DatasetException("empty corpus: " + corpusFile + " holds no documents");
    }
    Map<String, String> queries = readQueries(queriesFile);
    Qrels qrels;
    try {
      qrels = QrelsReader.read(qrelsFile);
    } catch (IllegalArgumentException e) {
      throw new DatasetException(e.getMessage(), e);
    }

    List<String> warnings = new ArrayList<>();
    Set<String> docIds = new HashSet<>();
    for (CorpusDocument doc : corpus) {
      docIds.add(doc.id());
    }
    int unknownQueries = 0;
    int unknownDocs = 0;
    for (String queryId : qrels.queryIds()) {
      if (!queries.containsKey(queryId)) {
        unknownQueries++;
      }
      for (String docId : qrels.judgments(queryId).keySet()) {
        if (!docIds.contains(docId)) {
          unknownDocs++;
        }
      }
    }
    if (unknownQueries > 0) {
      warnings.add(
          unknownQueries
              + " judged queries in qrels/test.tsv are absent from queries.jsonl (ignored)");
    }
    if (unknownDocs > 0) {
      warnings.add(
          unknownDocs
              + " judgments in qrels/test.tsv name documents absent from corpus.jsonl"
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
    if (Files.isRegularFile(spansFile)) {
      Map<String, CorpusDocument> documents = new HashMap<>();
      for (CorpusDocument doc : corpus) {
        documents.put(doc.id(), doc);
      }
      spans = SpanQrelsReader.read(spansFile, queries, documents, qrels);
    }
    String name = directory.toAbsolutePath().normalize().getFileName().toString();
    return new BeirDataset(name, directory, corpus, queries, qrels, spans, evaluated, warnings);
  }

  private static List<CorpusDocument> readCorpus(Path file) {
    List<CorpusDocument> corpus = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    JsonlReader.read(
        file,
        (node, line) -> {
          String id = JsonlReader.requiredId(node, "_id", file, line);
          if (!seen.add(id)) {
            throw new DatasetException(file + " line " + line + ": duplicate \"_id\" " + id);
          }
          corpus.add(
              new CorpusDocument(
                  id,
                  JsonlReader.optionalText(node, "title", file, line),
                  JsonlReader.optionalText(node, "text", file, line)));
        });
    return corpus;
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
