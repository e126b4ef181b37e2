package dev.tenbin.eval.posir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.beir.AnswerSpan;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The positional perturbation test (beyond PosIR's observational analysis): from a span-annotated
 * passage collection, one task per relative position p in which every gold passage is placed at
 * slot {@code round(p · K)} among K distractor passages, so the same questions and the same gold
 * text are measured at each position and position is the only thing that changes.
 *
 * <ul>
 *   <li><b>Gold and distractor pools.</b> The passages that hold a span are shuffled with the seed
 *       and split in two halves: the first half keeps its questions (the gold passages), the second
 *       half drops them and serves only as distractors. A distractor therefore never answers an
 *       evaluated question, and no document is relevant to a question it was not judged for.
 *   <li><b>One document per gold passage</b> ({@code p-<passage id>}): the K distractors drawn for
 *       it (without replacement, a {@link SplittableRandom} seeded with the seed and the passage
 *       id's SHA-256, in the order drawn) with the gold passage inserted at its slot, joined by
 *       {@link #SEPARATOR}. Every position uses the same distractors in the same order.
 *   <li><b>Spans</b> are shifted by the characters (code points) before the gold passage; qrels
 *       keep the source grades.
 * </ul>
 *
 * Writes {@code OUT/pos-<p>/} (a BEIR folder with {@code qrels/spans.tsv}) per position and {@code
 * OUT/posir.json} recording the source, its fingerprint, the positions, K, the seed, the separator
 * and, per document, the passages in order and the gold slot.
 */
public final class PerturbationBuilder {
  /** Joins the passages of a synthetic document, as the long xquad sets join paragraphs. */
  public static final String SEPARATOR = "\n";

  /** The manifest written beside the position folders. */
  public static final String MANIFEST = "posir.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private PerturbationBuilder() {}

  /** What was built: the position folders in order, questions and documents per folder. */
  public record Built(List<Path> folders, int queries, int documents) {}

  public static Built build(
      BeirDataset source,
      Path sourceFolder,
      List<Double> positions,
      int distractors,
      long seed,
      Path out) {
    check(source, positions, distractors, out);
    Map<String, CorpusDocument> passages = new LinkedHashMap<>();
    source.corpus().forEach(doc -> passages.put(doc.id(), doc));
    Set<String> spanPassages = new LinkedHashSet<>();
    for (String queryId : source.evaluatedQueryIds()) {
      source.spans().span(queryId).ifPresent(span -> spanPassages.add(span.documentId()));
    }
    List<String> shuffled = new ArrayList<>(spanPassages);
    shuffle(shuffled, new SplittableRandom(seed));
    List<String> gold = new ArrayList<>(shuffled.subList(0, (shuffled.size() + 1) / 2));
    List<String> pool = new ArrayList<>(shuffled.subList(gold.size(), shuffled.size()));
    pool.sort(null); // the draw depends on the pool's members, not on the shuffle
    if (pool.size() < distractors) {
      throw new InvalidInputException(
          "--distractors",
          "--distractors "
              + distractors
              + " exceeds the "
              + pool.size()
              + " passages of the distractor half of "
              + source.name());
    }
    gold.sort(null);
    Map<String, List<String>> drawn = new LinkedHashMap<>();
    for (String passage : gold) {
      SplittableRandom random = new SplittableRandom(seed ^ stableHash(passage));
      List<String> candidates = new ArrayList<>(pool);
      List<String> chosen = new ArrayList<>(distractors);
      for (int i = 0; i < distractors; i++) {
        int pick = i + random.nextInt(candidates.size() - i);
        String swap = candidates.get(i);
        candidates.set(i, candidates.get(pick));
        candidates.set(pick, swap);
        chosen.add(candidates.get(i));
      }
      drawn.put(passage, chosen);
    }
    Set<String> goldSet = new LinkedHashSet<>(gold);
    List<String> questions =
        source.evaluatedQueryIds().stream()
            .filter(
                q ->
                    source.spans().span(q).map(s -> goldSet.contains(s.documentId())).orElse(false))
            .toList();

    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("source", sourceFolder.toAbsolutePath().normalize().toString());
    manifest.put("source_fingerprint", DatasetFingerprint.of(sourceFolder));
    manifest.put("distractors", distractors);
    manifest.put("seed", seed);
    manifest.put("separator", SEPARATOR);
    manifest.put("gold_passages", gold.size());
    manifest.put("distractor_pool", pool.size());
    manifest.put("queries", questions.size());
    ArrayNode positionArray = manifest.putArray("positions");
    List<Path> folders = new ArrayList<>();
    for (double position : positions) {
      int slot = (int) Math.round(position * distractors);
      Path folder = out.resolve(folderName(position));
      folders.add(folder);
      ObjectNode entry = positionArray.addObject();
      entry.put("position", position);
      entry.put("folder", folder.getFileName().toString());
      entry.put("gold_slot", slot);
      writeTask(source, folder, passages, gold, drawn, slot, questions);
    }
    ArrayNode documents = manifest.putArray("documents");
    for (String passage : gold) {
      ObjectNode doc = documents.addObject();
      doc.put("id", documentId(passage));
      doc.put("gold", passage);
      ArrayNode order = doc.putArray("distractors");
      drawn.get(passage).forEach(order::add);
    }
    try {
      JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve(MANIFEST).toFile(), manifest);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + out.resolve(MANIFEST), e);
    }
    return new Built(folders, questions.size(), gold.size());
  }

  /** {@code pos-0.25}: the folder of a position. */
  public static String folderName(double position) {
    return String.format(Locale.ROOT, "pos-%.2f", position);
  }

  static String documentId(String passage) {
    return "p-" + passage;
  }

  private static void writeTask(
      BeirDataset source,
      Path folder,
      Map<String, CorpusDocument> passages,
      List<String> gold,
      Map<String, List<String>> drawn,
      int slot,
      List<String> questions) {
    Map<String, Integer> shift = new LinkedHashMap<>();
    Map<String, Integer> lengths = new LinkedHashMap<>();
    try {
      Files.createDirectories(folder.resolve("qrels"));
      try (BufferedWriter corpus = writer(folder.resolve("corpus.jsonl"))) {
        for (String passage : gold) {
          List<String> order = new ArrayList<>(drawn.get(passage));
          order.add(slot, passage);
          StringBuilder text = new StringBuilder();
          for (int i = 0; i < order.size(); i++) {
            if (i > 0) {
              text.append(SEPARATOR);
            }
            if (i == slot) {
              shift.put(passage, text.codePointCount(0, text.length()));
            }
            text.append(passages.get(order.get(i)).text());
          }
          lengths.put(passage, text.codePointCount(0, text.length()));
          ObjectNode line = JSON.createObjectNode();
          line.put("_id", documentId(passage));
          line.put("title", "");
          line.put("text", text.toString());
          corpus.write(JSON.writeValueAsString(line));
          corpus.write("\n");
        }
      }
      try (BufferedWriter queries = writer(folder.resolve("queries.jsonl"));
          BufferedWriter qrels = writer(folder.resolve("qrels/test.tsv"));
          BufferedWriter spans = writer(folder.resolve("qrels/spans.tsv"))) {
        qrels.write("query-id\tcorpus-id\tscore\n");
        spans.write("query-id\tcorpus-id\tstart\tend\n");
        for (String queryId : questions) {
          ObjectNode line = JSON.createObjectNode();
          line.put("_id", queryId);
          line.put("text", source.queries().get(queryId));
          queries.write(JSON.writeValueAsString(line));
          queries.write("\n");
          AnswerSpan span = source.spans().span(queryId).orElseThrow();
          String passage = span.documentId();
          int grade = source.qrels().judgments(queryId).get(passage);
          qrels.write(queryId + "\t" + documentId(passage) + "\t" + grade + "\n");
          int offset = shift.get(passage);
          spans.write(
              queryId
                  + "\t"
                  + documentId(passage)
                  + "\t"
                  + (span.start() + offset)
                  + "\t"
                  + (span.end() + offset)
                  + "\n");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + folder, e);
    }
  }

  private static void check(BeirDataset source, List<Double> positions, int distractors, Path out) {
    if (source.spans().isEmpty()) {
      throw new InvalidInputException(
          "--dataset",
          source.name() + " has no qrels/spans.tsv: the perturbation needs answer spans");
    }
    if (positions.isEmpty()) {
      throw new InvalidInputException("--positions", "--positions names no position");
    }
    Set<String> names = new LinkedHashSet<>();
    for (double position : positions) {
      if (!(position >= 0 && position <= 1)) {
        throw new InvalidInputException(
            "--positions", "--positions must lie within 0..1, got " + position);
      }
      if (!names.add(folderName(position))) {
        throw new InvalidInputException(
            "--positions", "--positions names " + folderName(position) + " twice");
      }
    }
    if (distractors < 0) {
      throw new InvalidInputException(
          "--distractors", "--distractors must not be negative, got " + distractors);
    }
    try {
      if (Files.exists(out)) {
        try (var entries = Files.list(out)) {
          if (entries.findAny().isPresent()) {
            throw new InvalidInputException("--out", "--out must be a new or empty folder: " + out);
          }
        }
      }
      Files.createDirectories(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + out, e);
    }
  }

  private static <T> void shuffle(List<T> list, SplittableRandom random) {
    for (int i = list.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      T swap = list.get(i);
      list.set(i, list.get(j));
      list.set(j, swap);
    }
  }

  /** The first 8 bytes of the SHA-256 of {@code id}: the same in every JVM. */
  static long stableHash(String id) {
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(id.getBytes(StandardCharsets.UTF_8));
      return java.nio.ByteBuffer.wrap(digest).getLong();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static BufferedWriter writer(Path file) throws IOException {
    return Files.newBufferedWriter(file, StandardCharsets.UTF_8);
  }
}
