package dev.tenbin.eval.nano;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.CorpusDocument;
import dev.tenbin.eval.dataset.DatasetFingerprint;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Builds a Nano-set from a BEIR collection: up to 200 deduplicated queries with at least one
 * positive, drawn with a seed; a corpus of every positive of those queries, then hard negatives
 * (judged with score ≤ 0) taken round-robin across the queries, then filler documents in the
 * original corpus order, up to 10,000 documents. The construction is recorded in {@code nano.json}.
 * A source with answer spans ({@code qrels/spans.tsv}) passes on the (earliest) span of every kept
 * query, so position analysis works on the Nano-set too.
 */
public final class NanoSetBuilder {
  public static final int MAX_QUERIES = 200;
  public static final int MAX_DOCUMENTS = 10_000;

  /** What was built. */
  public record Summary(int queries, int positives, int hardNegatives, int filler) {
    public int documents() {
      return positives + hardNegatives + filler;
    }
  }

  public Summary build(BeirDataset dataset, long seed, Path out) {
    // 1. Queries: evaluated ones (≥ 1 positive), deduplicated by normalised text, shuffled with the
    // seed.
    List<String> candidates = new ArrayList<>(dataset.evaluatedQueryIds());
    Collections.shuffle(candidates, new Random(seed));
    Set<String> seenTexts = new HashSet<>();
    List<String> queries = new ArrayList<>();
    for (String id : candidates) {
      String text =
          dataset.queries().get(id).trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
      if (seenTexts.add(text)) {
        queries.add(id);
      }
      if (queries.size() == MAX_QUERIES) {
        break;
      }
    }
    Map<String, CorpusDocument> byId = new HashMap<>();
    for (CorpusDocument doc : dataset.corpus()) {
      byId.put(doc.id(), doc);
    }
    // 2. Every positive of the chosen queries (in corpus order per query's judgments).
    LinkedHashSet<String> corpus = new LinkedHashSet<>();
    for (String query : queries) {
      dataset
          .qrels()
          .judgments(query)
          .forEach(
              (doc, grade) -> {
                if (grade > 0 && byId.containsKey(doc) && corpus.size() < MAX_DOCUMENTS) {
                  corpus.add(doc);
                }
              });
    }
    int positives = corpus.size();
    // 3. Hard negatives, round-robin across queries.
    List<List<String>> negatives = new ArrayList<>();
    for (String query : queries) {
      List<String> list = new ArrayList<>();
      dataset
          .qrels()
          .judgments(query)
          .forEach(
              (doc, grade) -> {
                if (grade <= 0 && byId.containsKey(doc)) {
                  list.add(doc);
                }
              });
      negatives.add(list);
    }
    for (int round = 0; corpus.size() < MAX_DOCUMENTS; round++) {
      boolean any = false;
      for (List<String> list : negatives) {
        if (round < list.size() && corpus.size() < MAX_DOCUMENTS) {
          corpus.add(list.get(round));
          any = true;
        }
      }
      if (!any) {
        break;
      }
    }
    int hardNegatives = corpus.size() - positives;
    // 4. Filler in original corpus order.
    for (CorpusDocument doc : dataset.corpus()) {
      if (corpus.size() >= MAX_DOCUMENTS) {
        break;
      }
      corpus.add(doc.id());
    }
    Summary summary =
        new Summary(
            queries.size(), positives, hardNegatives, corpus.size() - positives - hardNegatives);
    write(dataset, seed, out, queries, corpus, byId, summary);
    return summary;
  }

  private static void write(
      BeirDataset dataset,
      long seed,
      Path out,
      List<String> queries,
      Set<String> corpus,
      Map<String, CorpusDocument> byId,
      Summary summary) {
    ObjectMapper json = new ObjectMapper();
    try {
      Files.createDirectories(out.resolve("qrels"));
      try (BufferedWriter writer =
          Files.newBufferedWriter(out.resolve("corpus.jsonl"), StandardCharsets.UTF_8)) {
        for (String id : corpus) {
          CorpusDocument doc = byId.get(id);
          ObjectNode node =
              json.createObjectNode()
                  .put("_id", doc.id())
                  .put("title", doc.title())
                  .put("text", doc.text());
          writer.write(json.writeValueAsString(node));
          writer.newLine();
        }
      }
      try (BufferedWriter writer =
          Files.newBufferedWriter(out.resolve("queries.jsonl"), StandardCharsets.UTF_8)) {
        for (String id : queries) {
          writer.write(
              json.writeValueAsString(
                  json.createObjectNode().put("_id", id).put("text", dataset.queries().get(id))));
          writer.newLine();
        }
      }
      try (BufferedWriter writer =
          Files.newBufferedWriter(
              out.resolve("qrels").resolve("test.tsv"), StandardCharsets.UTF_8)) {
        writer.write("query-id\tcorpus-id\tscore");
        writer.newLine();
        for (String query : queries) {
          for (var judgment : dataset.qrels().judgments(query).entrySet()) {
            if (corpus.contains(judgment.getKey())) {
              writer.write(query + "\t" + judgment.getKey() + "\t" + judgment.getValue());
              writer.newLine();
            }
          }
        }
      }
      int spans = 0;
      if (!dataset.spans().isEmpty()) {
        try (BufferedWriter writer =
            Files.newBufferedWriter(
                out.resolve("qrels").resolve("spans.tsv"), StandardCharsets.UTF_8)) {
          writer.write("query-id\tcorpus-id\tstart\tend");
          writer.newLine();
          for (String query : queries) {
            var span = dataset.spans().span(query).orElse(null);
            if (span != null && corpus.contains(span.documentId())) {
              writer.write(
                  query + "\t" + span.documentId() + "\t" + span.start() + "\t" + span.end());
              writer.newLine();
              spans++;
            }
          }
        }
      }
      ObjectNode record = json.createObjectNode();
      record.put("format_version", 1);
      record.put("source_dataset", dataset.name());
      record.put("source_sha256", DatasetFingerprint.of(dataset.directory()));
      record.put("seed", seed);
      record.put("max_queries", MAX_QUERIES);
      record.put("max_documents", MAX_DOCUMENTS);
      record.put("queries", summary.queries());
      record.put("positives", summary.positives());
      record.put("hard_negatives", summary.hardNegatives());
      record.put("filler", summary.filler());
      record.put("spans", spans);
      record.put(
          "method",
          "queries with >= 1 positive, deduplicated by normalised text, shuffled with the seed, first "
              + MAX_QUERIES
              + "; corpus = their positives, then hard negatives (score <= 0) round-robin across"
              + " queries, then filler in original corpus order, up to "
              + MAX_DOCUMENTS
              + " documents");
      json.writerWithDefaultPrettyPrinter().writeValue(out.resolve("nano.json").toFile(), record);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Nano-set to " + out, e);
    }
  }
}
