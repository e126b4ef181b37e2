package dev.tenbin.scoring.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.DatasetException;
import dev.tenbin.testing.data.Scratch;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the BEIR folder reader with arbitrary {@code corpus.jsonl}, {@code queries.jsonl} and
 * {@code qrels/test.tsv} bytes (the other two files valid). Contract: a {@link DatasetException}
 * naming the file, or a dataset that holds exactly what the file says: one record per non-blank
 * line, each line one JSON object and nothing else, ids non-empty, unique and free of whitespace
 * (qrels and TREC runs are whitespace separated).
 */
class DatasetReaderFuzzTest {
  // Dictionary entries hold no control characters: Jazzer 0.30.0 writes them unescaped and
  // libFuzzer then refuses the dictionary file.
  private static final ObjectMapper STRICT =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final String CORPUS =
      "{\"_id\":\"d1\",\"title\":\"t\",\"text\":\"apple\"}\n{\"_id\":\"d2\",\"text\":\"banana\"}\n";
  private static final String QUERIES =
      "{\"_id\":\"q1\",\"text\":\"apple?\"}\n{\"_id\":\"q2\",\"text\":\"banana?\"}\n";
  private static final String QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\n";

  @DictionaryEntries({
    "{\"_id\":\"",
    "\"text\":\"",
    "\"title\":",
    "\",",
    "\"}",
    "null",
    "true",
    "1e9",
    "[]",
    "{}",
    "\\u0000",
    "\\t"
  })
  @FuzzTest
  void corpusLines(byte[] corpus) throws Exception {
    Path dir =
        folder(
            corpus,
            QUERIES.getBytes(StandardCharsets.UTF_8),
            QRELS.getBytes(StandardCharsets.UTF_8));
    BeirDataset dataset = readOrReject(dir, "corpus.jsonl");
    if (dataset == null) {
      return;
    }
    List<JsonNode> records = strictRecords(corpus);
    List<CorpusDocument> documents = dataset.corpus().toList();
    assertThat(dataset.corpus().size()).isEqualTo(records.size());
    assertThat(documents).hasSameSizeAs(records);
    for (int i = 0; i < records.size(); i++) {
      CorpusDocument doc = documents.get(i);
      assertThat(doc.id()).isEqualTo(records.get(i).get("_id").asText());
      assertValidId(doc.id());
      assertThat(doc.title()).isEqualTo(text(records.get(i), "title"));
      assertThat(doc.text()).isEqualTo(text(records.get(i), "text"));
    }
    assertThat(documents.stream().map(CorpusDocument::id).distinct()).hasSameSizeAs(records);
  }

  @DictionaryEntries({
    "{\"_id\":\"",
    "\"text\":\"",
    "\"title\":",
    "\",",
    "\"}",
    "null",
    "true",
    "1e9",
    "[]",
    "{}",
    "\\u0000",
    "\\t"
  })
  @FuzzTest
  void queryLines(byte[] queries) throws Exception {
    Path dir =
        folder(
            CORPUS.getBytes(StandardCharsets.UTF_8),
            queries,
            QRELS.getBytes(StandardCharsets.UTF_8));
    BeirDataset dataset = readOrReject(dir, "queries.jsonl");
    if (dataset == null) {
      return;
    }
    List<JsonNode> records = strictRecords(queries);
    assertThat(dataset.queries()).hasSameSizeAs(records);
    List<String> ids = new ArrayList<>(dataset.queries().keySet());
    for (int i = 0; i < records.size(); i++) {
      assertThat(ids.get(i)).isEqualTo(records.get(i).get("_id").asText());
      assertValidId(ids.get(i));
      assertThat(dataset.queries().get(ids.get(i))).isEqualTo(records.get(i).get("text").asText());
    }
    assertThat(dataset.evaluatedQueryIds())
        .isNotEmpty()
        .allMatch(id -> dataset.qrels().relevantCount(id) > 0);
  }

  @DictionaryEntries({"query-id", "corpus-id", "score", "q1", "d1", " Q0 ", "-1", "2147483648"})
  @FuzzTest
  void qrelsLines(byte[] qrels) throws Exception {
    Path dir =
        folder(
            CORPUS.getBytes(StandardCharsets.UTF_8),
            QUERIES.getBytes(StandardCharsets.UTF_8),
            qrels);
    BeirDataset dataset = readOrReject(dir, "test.tsv");
    if (dataset == null) {
      return;
    }
    assertThat(dataset.evaluatedQueryIds()).isNotEmpty().isSubsetOf(dataset.queries().keySet());
    for (String queryId : dataset.qrels().queryIds()) {
      assertValidId(queryId);
      dataset.qrels().judgments(queryId).keySet().forEach(DatasetReaderFuzzTest::assertValidId);
    }
  }

  private static Path folder(byte[] corpus, byte[] queries, byte[] qrels) throws Exception {
    Path dir = Scratch.fresh("beir");
    Files.write(dir.resolve("corpus.jsonl"), corpus);
    Files.write(dir.resolve("queries.jsonl"), queries);
    Files.write(Files.createDirectories(dir.resolve("qrels")).resolve("test.tsv"), qrels);
    return dir;
  }

  /** The dataset, or null when the reader refused it with a message naming the file. */
  private static BeirDataset readOrReject(Path dir, String file) {
    try {
      return BeirDatasetReader.read(dir);
    } catch (DatasetException refused) {
      assertThat(refused.getMessage()).isNotBlank().doesNotContain("Exception");
      return null;
    }
  }

  /**
   * Every non-blank line as exactly one JSON object, by a strict parser (no trailing data, no
   * duplicate keys).
   */
  private static List<JsonNode> strictRecords(byte[] bytes) throws Exception {
    String content = strictUtf8(bytes);
    List<JsonNode> records = new ArrayList<>();
    for (String line : content.split("\r\n|\r|\n", -1)) {
      if (!line.isBlank()) {
        JsonNode node = STRICT.readTree(line);
        assertThat(node.isObject()).as("an accepted line is a JSON object: %s", line).isTrue();
        records.add(node);
      }
    }
    return records;
  }

  private static String strictUtf8(byte[] bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }

  private static String text(JsonNode record, String field) {
    JsonNode value = record.get(field);
    if (value == null || value.isNull()) {
      return "";
    }
    assertThat(value.isValueNode())
        .as("an accepted \"%s\" is a single value, not %s", field, value)
        .isTrue();
    return value.asText();
  }

  private static void assertValidId(String id) {
    assertThat(id).isNotEmpty();
    assertThat(
            id.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c)))
        .as("id '%s' holds no whitespace or control character", id)
        .isTrue();
  }
}
