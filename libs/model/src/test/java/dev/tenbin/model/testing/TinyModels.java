package dev.tenbin.model.testing;

import dev.tenbin.model.card.DecoderSettings;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.Pooling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Local model folders (card.json + model.onnx + tokenizer.json) built from tiny ONNX graphs. */
public final class TinyModels {
  public static final List<String> WORDS =
      List.of("apple", "banana", "cherry", "date", "elder", "fig", "grape", "query");
  public static final int VOCABULARY = WORDS.size() + 4;
  public static final int HIDDEN = 8;

  private TinyModels() {}

  private static ModelCard card(
      String id,
      Pooling pooling,
      OutputKind kind,
      int dimension,
      String queryPrompt,
      List<Integer> matryoshka) {
    return new ModelCard(
        id,
        "test-rev",
        "",
        "model.onnx",
        "tokenizer.json",
        pooling,
        kind != OutputKind.SPARSE,
        dimension,
        matryoshka,
        32,
        queryPrompt,
        "",
        kind,
        100,
        100,
        "");
  }

  public static Path dense(Path modelsDir, String id, boolean fp16) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.MEAN, OutputKind.DENSE, HIDDEN, "query ", List.of(4)),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 42), VOCABULARY, HIDDEN, fp16));
  }

  public static Path multiVector(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.CLS, OutputKind.MULTIVECTOR, HIDDEN, "", List.of()),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 43), VOCABULARY, HIDDEN, false));
  }

  public static Path sparse(Path modelsDir, String id) throws IOException {
    return write(
        modelsDir.resolve(id),
        card(id, Pooling.CLS, OutputKind.SPARSE, VOCABULARY, "", List.of()),
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
      Pooling pooling,
      boolean causal,
      int outputType,
      int maxLength,
      float scale,
      DecoderSettings decoder)
      throws IOException {
    ModelCard card =
        new ModelCard(
            id,
            "test-rev",
            "",
            "model.onnx",
            "tokenizer.json",
            pooling,
            false,
            HIDDEN,
            List.of(),
            maxLength,
            "",
            "",
            OutputKind.DENSE,
            100,
            100,
            "",
            decoder);
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
    LocalModelDirectory.writeCard(dir, card);
    return dir;
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

  private static Path write(Path dir, ModelCard card, byte[] onnx) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("model.onnx"), onnx);
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(WORDS));
    LocalModelDirectory.writeCard(dir, card);
    return dir;
  }
}
