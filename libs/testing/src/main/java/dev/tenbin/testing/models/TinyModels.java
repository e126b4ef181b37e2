package dev.tenbin.testing.models;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Local model folders (card.json + model.onnx + tokenizer.json) built from tiny ONNX graphs. The
 * cards are written as a user writes them (docs/models.md, "card.json"), field by field, so the
 * model runtime's tests read the documented format rather than their own serialization.
 */
public final class TinyModels {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The {@code decoder} block of a decoder-backbone card.
   *
   * @param paddingSide {@code left} or {@code right}
   * @param eosToken the token appended to every input, or empty
   * @param queryTemplate the query template ({@code {text}}, optionally {@code {task}}), or empty
   * @param documentTemplate the document template, or empty
   * @param task the task a template's {@code {task}} stands for, or empty
   */
  public record Decoder(
      String paddingSide,
      String eosToken,
      String queryTemplate,
      String documentTemplate,
      String task) {}

  public static final List<String> WORDS =
      List.of("apple", "banana", "cherry", "date", "elder", "fig", "grape", "query");
  public static final int VOCABULARY = WORDS.size() + 4;
  public static final int HIDDEN = 8;

  private TinyModels() {}

  /**
   * A card's fields.
   *
   * @param pooling {@code CLS}, {@code MEAN} or {@code LAST_TOKEN}
   * @param kind {@code DENSE}, {@code SPARSE} or {@code MULTIVECTOR}
   */
  private static ObjectNode card(
      String id,
      String pooling,
      String kind,
      int dimension,
      String queryPrompt,
      List<Integer> matryoshka,
      int maxLength) {
    ObjectNode card = JSON.createObjectNode();
    card.put("id", id);
    card.put("revision", "test-rev");
    card.put("source", "");
    card.put("onnx_file", "model.onnx");
    card.put("tokenizer_file", "tokenizer.json");
    card.put("pooling", pooling);
    card.put("normalize", kind.equals("DENSE") || kind.equals("MULTIVECTOR"));
    card.put("dimension", dimension);
    matryoshka.forEach(card.putArray("matryoshka_dimensions")::add);
    card.put("max_length", maxLength);
    card.put("query_prompt", queryPrompt);
    card.put("document_prompt", "");
    card.put("output_kind", kind);
    card.put("total_parameters", 100);
    card.put("active_parameters", 100);
    card.put("resolved_sha", "");
    return card;
  }

  public static Path dense(Path modelsDir, String id, boolean fp16) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, "MEAN", "DENSE", HIDDEN, "query ", List.of(4), 32),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 42), VOCABULARY, HIDDEN, fp16));
  }

  /**
   * A dense model whose outputs depend on the other inputs of a pass ({@link
   * TinyOnnxModels#batchDependentEncoder}), card as {@link #dense}.
   */
  public static Path batchDependent(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, "MEAN", "DENSE", HIDDEN, "query ", List.of(4), 32),
        TinyOnnxModels.batchDependentEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 42), VOCABULARY, HIDDEN));
  }

  public static Path multiVector(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, "CLS", "MULTIVECTOR", HIDDEN, "", List.of(), 32),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 43), VOCABULARY, HIDDEN, false));
  }

  public static Path sparse(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, "CLS", "SPARSE", VOCABULARY, "", List.of(), 32),
        TinyOnnxModels.mlmEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 44),
            TinyOnnxModels.table(HIDDEN, VOCABULARY, 45),
            VOCABULARY,
            HIDDEN));
  }

  /**
   * A cross-encoder folder for the rerank service: a one-label pair classifier (seeds 1 and 2) with
   * a SIGMOID head, card {@code {"id": id, "revision": "r1", "head": "SIGMOID"}}.
   */
  public static Path crossEncoder(Path modelsDir, String id) throws IOException {
    Path folder = Files.createDirectories(modelsDir.resolve(id));
    Files.write(
        folder.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 1),
            TinyOnnxModels.table(HIDDEN, 1, 2),
            VOCABULARY,
            HIDDEN,
            1,
            false));
    Files.write(folder.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(WORDS));
    Files.writeString(
        folder.resolve("card.json"),
        "{\"id\":\"" + id + "\",\"revision\":\"r1\",\"head\":\"SIGMOID\"}");
    return folder;
  }

  /** Seed of the decoder's token table; its position table uses the next one. */
  public static final long DECODER_SEED = 46;

  /**
   * A decoder-backbone model folder: {@link TinyOnnxModels#decoderEncoder} (input_ids,
   * attention_mask, position_ids) over {@link TinyOnnxModels#decoderTokenizer} (no special tokens
   * added), with {@code maxLength} positions.
   *
   * @param scale factor of the seeded Gaussian token and position tables (small keeps the sums of
   *     long inputs out of tanh's saturation)
   * @param outputType {@link TinyOnnxModels#FLOAT}, {@code FLOAT16} or {@code BFLOAT16}
   */
  public static Path decoder(
      Path modelsDir,
      String id,
      String pooling,
      boolean causal,
      int outputType,
      int maxLength,
      float scale,
      Decoder decoder)
      throws IOException {
    ObjectNode card = card(id, pooling, "DENSE", HIDDEN, "", List.of(), maxLength);
    card.put("normalize", false);
    ObjectNode block = card.putObject("decoder");
    block.put("padding_side", decoder.paddingSide());
    putUnlessEmpty(block, "eos_token", decoder.eosToken());
    putUnlessEmpty(block, "query_template", decoder.queryTemplate());
    putUnlessEmpty(block, "document_template", decoder.documentTemplate());
    putUnlessEmpty(block, "task", decoder.task());
    Path dir = modelsDir.resolve(id);
    Files.createDirectories(dir);
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.decoderEncoder(
            decoderTable(DECODER_VOCABULARY, DECODER_SEED, scale),
            decoderTable(maxLength, DECODER_SEED + 1, scale),
            DECODER_VOCABULARY,
            maxLength,
            HIDDEN,
            causal,
            outputType));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.decoderTokenizer(WORDS));
    writeCard(dir, card);
    return dir;
  }

  private static void putUnlessEmpty(ObjectNode node, String field, String value) {
    if (value != null && !value.isEmpty()) {
      node.put(field, value);
    }
  }

  /** Tokens of {@link #decoder}'s vocabulary: [PAD], [UNK], <|endoftext|>, then {@link #WORDS}. */
  public static final int DECODER_VOCABULARY = WORDS.size() + 3;

  /** The decoder's token (seed {@link #DECODER_SEED}) or position table, [rows, HIDDEN]. */
  public static float[] decoderTable(int rows, long seed, float scale) {
    float[] table = TinyOnnxModels.table(rows, HIDDEN, seed);
    for (int i = 0; i < table.length; i++) {
      table[i] *= scale;
    }
    return table;
  }

  private static Path write(Path dir, ObjectNode card, byte[] onnx) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("model.onnx"), onnx);
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(WORDS));
    writeCard(dir, card);
    return dir;
  }

  private static void writeCard(Path dir, ObjectNode card) throws IOException {
    Files.writeString(dir.resolve("card.json"), card.toPrettyString() + "\n");
  }
}
