package dev.tenbin.eval.nano;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.DatasetFingerprint;
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
import java.util.TreeMap;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * Builds a Nano-set from a BEIR collection, as {@link NanoSettings} asks:
 *
 * <ol>
 *   <li>Queries: those with at least one positive in the corpus, deduplicated by {@link
 *       #normalised} text, shuffled with the seed; taken in that order while all of a query's
 *       positives fit under the document cap, up to the query cap.
 *   <li>Every positive (score &gt; 0) of the kept queries, always.
 *   <li>Hard negatives, per query a list: its judged negatives (score ≤ 0, qrels order) and/or its
 *       mined ones (see {@link NegativePool}); taken round-robin across the queries in their drawn
 *       order, each round adding the next new document of every query, until the document cap.
 *   <li>Filler: the remaining corpus shuffled with the seed, until the document cap.
 * </ol>
 *
 * Documents are deduplicated by the normalised text of title + " " + text: a document whose text
 * equals one already kept (a positive included) never enters as a negative or filler. The
 * construction and its counts are recorded in {@code nano.json}. A source with answer spans ({@code
 * qrels/spans.tsv}) passes on the (earliest) span of every kept query.
 */
public final class NanoSetBuilder {
  public static final int MAX_QUERIES = NanoSettings.MAX_QUERIES;
  public static final int MAX_DOCUMENTS = NanoSettings.MAX_DOCUMENTS;
  public static final int FORMAT_VERSION = 2;

  /**
   * What was built.
   *
   * @param queries queries kept
   * @param positives positive documents
   * @param judgedNegatives hard negatives judged in the source qrels (score ≤ 0)
   * @param minedNegatives hard negatives mined by retrieval
   * @param filler documents sampled with the seed
   * @param duplicatesDropped documents left out because their normalised text was already kept
   * @param hardNegativeSource where the hard negatives came from: judged, mined or both
   */
  public record Summary(
      int queries,
      int positives,
      int judgedNegatives,
      int minedNegatives,
      int filler,
      int duplicatesDropped,
      NanoSettings.HardNegatives hardNegativeSource) {
    public int hardNegativeCount() {
      return judgedNegatives + minedNegatives;
    }

    public int documents() {
      return positives + judgedNegatives + minedNegatives + filler;
    }
  }

  /**
   * The text that deduplicates queries and documents: trimmed, lower-cased (root locale), each run
   * of whitespace one space.
   */
  public static String normalised(String text) {
    return text.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
  }

  /** A Nano-set with the protocol's defaults and judged negatives only (no miner needed). */
  public Summary build(BeirDataset dataset, long seed, Path out) {
    NanoSettings defaults = NanoSettings.defaults(seed);
    return build(
        dataset,
        new NanoSettings(
            defaults.maxQueries(),
            defaults.maxDocuments(),
            seed,
            NanoSettings.HardNegatives.JUDGED,
            List.of(),
            defaults.miningDepth()),
        List.of(),
        out);
  }

  /**
   * Builds the Nano-set of {@code dataset} into {@code out}; {@code miners} (one per {@code
   * settings.miners()}, same order) rank only when negatives are mined.
   */
  public Summary build(
      BeirDataset dataset, NanoSettings settings, List<HardNegativeMiner> miners, Path out) {
    Map<String, CorpusDocument> byId = new HashMap<>();
    for (CorpusDocument doc : dataset.corpus()) {
      byId.put(doc.id(), doc);
    }
    Selection selection = new Selection(byId, settings.maxDocuments());

    // 1 and 2. Queries and their positives.
    List<String> candidates = new ArrayList<>(dataset.evaluatedQueryIds());
    Collections.shuffle(candidates, new Random(settings.seed()));
    Set<String> seenQueryTexts = new HashSet<>();
    List<String> queries = new ArrayList<>();
    for (String id : candidates) {
      if (queries.size() == settings.maxQueries()) {
        break;
      }
      List<String> positives = positives(dataset, id, byId);
      if (positives.isEmpty() || seenQueryTexts.contains(normalised(dataset.queries().get(id)))) {
        continue;
      }
      long added = positives.stream().filter(doc -> !selection.contains(doc)).count();
      if (selection.size() + added > settings.maxDocuments()) {
        continue;
      }
      seenQueryTexts.add(normalised(dataset.queries().get(id)));
      queries.add(id);
      positives.forEach(selection::addPositive);
    }
    int positiveCount = selection.size();

    // 3. Hard negatives.
    NanoSettings.HardNegatives source = resolve(settings.hardNegatives(), dataset, queries, byId);
    List<List<Candidate>> perQuery = new ArrayList<>();
    for (String query : queries) {
      List<Candidate> list = new ArrayList<>();
      if (source != NanoSettings.HardNegatives.MINED) {
        judgedNegatives(dataset, query, byId).forEach(doc -> list.add(new Candidate(doc, true)));
      }
      perQuery.add(list);
    }
    if (source != NanoSettings.HardNegatives.JUDGED) {
      if (miners.size() != settings.miners().size()) {
        throw new IllegalArgumentException(
            "expected one miner per miner spec " + settings.miners() + ", got " + miners.size());
      }
      Map<String, List<String>> mined =
          NegativePool.mine(dataset, queries, miners, settings.miningDepth());
      for (int q = 0; q < queries.size(); q++) {
        List<Candidate> list = perQuery.get(q);
        Set<String> judged = new HashSet<>();
        list.forEach(candidate -> judged.add(candidate.docId()));
        for (String doc : mined.get(queries.get(q))) {
          if (!judged.contains(doc)) {
            list.add(new Candidate(doc, false));
          }
        }
      }
    }
    int[] negatives = roundRobin(perQuery, selection);

    // 4. Filler, sampled with the seed.
    List<String> rest = new ArrayList<>();
    for (CorpusDocument doc : dataset.corpus()) {
      if (!selection.contains(doc.id())) {
        rest.add(doc.id());
      }
    }
    Collections.shuffle(rest, new Random(settings.seed()));
    int filler = 0;
    for (String doc : rest) {
      if (selection.full()) {
        break;
      }
      if (selection.add(doc)) {
        filler++;
      }
    }

    Summary summary =
        new Summary(
            queries.size(),
            positiveCount,
            negatives[0],
            negatives[1],
            filler,
            selection.duplicatesDropped(),
            source);
    write(dataset, settings, miners, out, queries, selection.ids(), byId, summary);
    return summary;
  }

  /** A hard-negative candidate of one query, judged in the qrels or mined. */
  private record Candidate(String docId, boolean judged) {}

  /**
   * Round r adds, for every query in drawn order, its next candidate that is new to the set and not
   * a duplicate; stops at the cap or when no query has one left. Returns {judged, mined} added.
   */
  private static int[] roundRobin(List<List<Candidate>> perQuery, Selection selection) {
    int[] added = new int[2];
    int[] cursor = new int[perQuery.size()];
    boolean any = true;
    while (any && !selection.full()) {
      any = false;
      for (int q = 0; q < perQuery.size() && !selection.full(); q++) {
        List<Candidate> list = perQuery.get(q);
        while (cursor[q] < list.size()) {
          Candidate candidate = list.get(cursor[q]++);
          if (selection.add(candidate.docId())) {
            added[candidate.judged() ? 0 : 1]++;
            any = true;
            break;
          }
        }
      }
    }
    return added;
  }

  private static NanoSettings.HardNegatives resolve(
      NanoSettings.HardNegatives requested,
      BeirDataset dataset,
      List<String> queries,
      Map<String, CorpusDocument> byId) {
    if (requested != NanoSettings.HardNegatives.AUTO) {
      return requested;
    }
    for (String query : queries) {
      if (!judgedNegatives(dataset, query, byId).isEmpty()) {
        return NanoSettings.HardNegatives.JUDGED;
      }
    }
    return NanoSettings.HardNegatives.MINED;
  }

  /** The query's judged positives (score > 0) present in the corpus, in qrels order. */
  static List<String> positives(
      BeirDataset dataset, String query, Map<String, CorpusDocument> byId) {
    return judged(dataset, query, grade -> grade > 0, byId::containsKey);
  }

  private static List<String> judgedNegatives(
      BeirDataset dataset, String query, Map<String, CorpusDocument> byId) {
    return judged(dataset, query, grade -> grade <= 0, byId::containsKey);
  }

  /** The query's judged documents whose grade and id pass the tests, in qrels order. */
  static List<String> judged(
      BeirDataset dataset, String query, IntPredicate grade, Predicate<String> document) {
    List<String> out = new ArrayList<>();
    dataset
        .qrels()
        .judgments(query)
        .forEach(
            (doc, value) -> {
              if (grade.test(value) && document.test(doc)) {
                out.add(doc);
              }
            });
    return out;
  }

  /** The documents chosen so far, in order, with the normalised texts that keep duplicates out. */
  private static final class Selection {
    private final Map<String, CorpusDocument> byId;
    private final int cap;
    private final LinkedHashSet<String> ids = new LinkedHashSet<>();
    private final Set<String> texts = new HashSet<>();
    private final Set<String> duplicates = new HashSet<>();

    Selection(Map<String, CorpusDocument> byId, int cap) {
      this.byId = byId;
      this.cap = cap;
    }

    boolean contains(String id) {
      return ids.contains(id);
    }

    int size() {
      return ids.size();
    }

    boolean full() {
      return ids.size() >= cap;
    }

    /** A positive enters whatever its text (the caller checked the cap). */
    void addPositive(String id) {
      if (ids.add(id)) {
        texts.add(normalised(byId.get(id).titleAndText()));
      }
    }

    /** Adds a negative or filler document unless it is already in, a duplicate, or the set full. */
    boolean add(String id) {
      if (full() || ids.contains(id) || duplicates.contains(id)) {
        return false;
      }
      if (!texts.add(normalised(byId.get(id).titleAndText()))) {
        duplicates.add(id);
        return false;
      }
      ids.add(id);
      return true;
    }

    int duplicatesDropped() {
      return duplicates.size();
    }

    Set<String> ids() {
      return ids;
    }
  }

  private static void write(
      BeirDataset dataset,
      NanoSettings settings,
      List<HardNegativeMiner> miners,
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
      record.put("format_version", FORMAT_VERSION);
      record.put("source_dataset", dataset.name());
      record.put("source_path", dataset.directory().toAbsolutePath().normalize().toString());
      record.put("source_sha256", DatasetFingerprint.of(dataset.directory()));
      record.put("seed", settings.seed());
      record.put("max_queries", settings.maxQueries());
      record.put("max_documents", settings.maxDocuments());
      record.put("hard_negatives_requested", settings.hardNegatives().label());
      record.put("hard_negatives_source", summary.hardNegativeSource().label());
      if (summary.hardNegativeSource() != NanoSettings.HardNegatives.JUDGED) {
        ObjectNode mining = record.putObject("mining");
        mining.put("depth", settings.miningDepth());
        ArrayNode minerNodes = mining.putArray("miners");
        for (HardNegativeMiner miner : miners) {
          ObjectNode node = minerNodes.addObject().put("name", miner.name());
          new TreeMap<>(miner.facts()).forEach(node::put);
        }
        mining.put("pooling", NegativePool.POLICY);
      }
      record.put("queries", summary.queries());
      record.put("documents", summary.documents());
      record.put("positives", summary.positives());
      record.put("hard_negatives", summary.hardNegativeCount());
      record.put("judged_hard_negatives", summary.judgedNegatives());
      record.put("mined_hard_negatives", summary.minedNegatives());
      record.put("filler", summary.filler());
      record.put("duplicates_dropped", summary.duplicatesDropped());
      record.put("spans", spans);
      record.put(
          "text_normalisation", "trim, lower case (root locale), whitespace runs to one space");
      record.put(
          "method",
          "queries with >= 1 positive in the corpus, deduplicated by normalised text, shuffled with"
              + " the seed, taken while their positives fit, first "
              + settings.maxQueries()
              + "; corpus = their positives, then hard negatives ("
              + summary.hardNegativeSource().label()
              + ") round-robin across queries in drawn order, then filler sampled with the seed, up"
              + " to "
              + settings.maxDocuments()
              + " documents; a document whose normalised title + text is already kept is dropped");
      json.writerWithDefaultPrettyPrinter().writeValue(out.resolve("nano.json").toFile(), record);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Nano-set to " + out, e);
    }
  }
}
