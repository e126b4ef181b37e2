package dev.tenbin.encoder.registry;

import dev.tenbin.model.FileStamps;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.Pooling;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The models packaged in the {@code dev.langchain4j:langchain4j-embeddings-*} jars on the
 * classpath. Each jar carries only an ONNX graph and a {@code tokenizer.json} (Xenova's ONNX
 * exports of the original repositories); the cards are Tenbin's, written from the upstream model
 * cards and their sentence-transformers files:
 *
 * <ul>
 *   <li>{@code bge-small-en-v1.5} (huggingface.co/BAAI/bge-small-en-v1.5): CLS pooling ({@code
 *       1_Pooling/config.json}), normalised, the query instruction "Represent this sentence for
 *       searching relevant passages: " of the model card's retrieval usage, no document prompt.
 *   <li>{@code e5-small-v2} (huggingface.co/intfloat/e5-small-v2): mean pooling, normalised,
 *       "query: " / "passage: " prefixes, as the model card requires.
 *   <li>{@code all-minilm-l6-v2} (huggingface.co/sentence-transformers/all-MiniLM-L6-v2): mean
 *       pooling, normalised, no prompts. Its {@code sentence_bert_config.json} says 256 tokens and
 *       the jar's {@code tokenizer.json} truncates at 128 (its training length); the card keeps 512
 *       (its position-embedding table), as the reference pipeline of the shared datasets does.
 *   <li>{@code bge-small-zh-v1.5} (huggingface.co/BAAI/bge-small-zh-v1.5): CLS pooling, normalised,
 *       the query instruction "为这个句子生成表示以用于检索相关文章：", no document prompt.
 * </ul>
 *
 * <p>The dimension is left 0: it is read from the graph at load (384 for the first three, 512 for
 * bge-small-zh-v1.5). None of these models was trained with a Matryoshka loss, so no card declares
 * Matryoshka dimensions: a truncation of them is plain truncation, available only when asked for by
 * name. The maximum length is 512 tokens for all, the size of their position-embedding tables; the
 * {@code -q} suffix names the int8 versions of the same models, with the same cards.
 */
public final class BuiltinModels {
  private static final String BGE_QUERY =
      "Represent this sentence for searching relevant passages: ";

  private static final Map<String, ModelCard> CARDS = new LinkedHashMap<>();

  /** Maven artifact (in group dev.langchain4j) of each built-in model. */
  private static final Map<String, String> ARTIFACTS = new LinkedHashMap<>();

  static {
    add("bge-small-en-v1.5", "bge-small-en-v15", Pooling.CLS, BGE_QUERY, "", 33_360_000L);
    add("e5-small-v2", "e5-small-v2", Pooling.MEAN, "query: ", "passage: ", 33_360_000L);
    add("all-minilm-l6-v2", "all-minilm-l6-v2", Pooling.MEAN, "", "", 22_710_000L);
    add(
        "bge-small-zh-v1.5",
        "bge-small-zh-v15",
        Pooling.CLS,
        "为这个句子生成表示以用于检索相关文章：",
        "",
        23_950_000L);
  }

  private static void add(
      String id, String artifact, Pooling pooling, String query, String document, long parameters) {
    for (String suffix : List.of("", "-q")) {
      String variant = id + suffix;
      CARDS.put(
          variant,
          new ModelCard(
              variant,
              "",
              "classpath",
              variant + ".onnx",
              variant + "-tokenizer.json",
              pooling,
              true,
              0,
              List.of(),
              512,
              query,
              document,
              OutputKind.DENSE,
              parameters,
              parameters,
              ""));
      ARTIFACTS.put(variant, "langchain4j-embeddings-" + artifact + suffix);
    }
  }

  private BuiltinModels() {}

  /** Canonical ids of the built-in models, lower case ("all-MiniLM-L6-v2" is accepted too). */
  public static List<String> ids() {
    return List.copyOf(CARDS.keySet());
  }

  /** Loads a built-in model's files from the classpath, recording the jar's version. */
  public static Optional<ModelFiles> load(String id) {
    ModelCard card = CARDS.get(id.toLowerCase(java.util.Locale.ROOT));
    if (card == null) {
      return Optional.empty();
    }
    URL onnx = BuiltinModels.class.getClassLoader().getResource(card.onnxFile());
    if (onnx == null) {
      return Optional.empty();
    }
    // The revision is the jar's Maven version, read from the pom.properties it carries, so it is
    // the same however the jar is packaged (local repository, lib/ folder, IDE).
    String artifact = ARTIFACTS.get(card.id());
    String revision = mavenVersion(artifact);
    String source =
        revision.isEmpty()
            ? "classpath:" + onnx
            : "classpath:dev.langchain4j:" + artifact + ":" + revision;
    return Optional.of(
        new ModelFiles(
            card.withOrigin(source, revision, ""),
            read(card.onnxFile()),
            read(card.tokenizerFile())));
  }

  /**
   * The stamp ({@link FileStamps}) of the jars or files a built-in model's graph and tokenizer are
   * read from; empty when they are not plain files (another kind of class loader).
   */
  static Optional<String> stamp(String id) {
    ModelCard card = CARDS.get(id.toLowerCase(java.util.Locale.ROOT));
    if (card == null) {
      return Optional.empty();
    }
    List<Path> files = new ArrayList<>();
    for (String resource : List.of(card.onnxFile(), card.tokenizerFile())) {
      URL url = BuiltinModels.class.getClassLoader().getResource(resource);
      Optional<Path> file = url == null ? Optional.empty() : containingFile(url);
      if (file.isEmpty()) {
        return Optional.empty();
      }
      files.add(file.get());
    }
    try {
      return FileStamps.of(files);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The jar a {@code jar:} resource is in, or the file of a {@code file:} resource. */
  private static Optional<Path> containingFile(URL url) {
    try {
      return switch (url.getProtocol()) {
        case "jar" ->
            Optional.of(Path.of(((JarURLConnection) url.openConnection()).getJarFileURL().toURI()));
        case "file" -> Optional.of(Path.of(url.toURI()));
        default -> Optional.empty();
      };
    } catch (IOException | URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static String mavenVersion(String artifact) {
    String resource = "META-INF/maven/dev.langchain4j/" + artifact + "/pom.properties";
    try (InputStream in = BuiltinModels.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        return "";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  static boolean isBuiltin(String id) {
    return CARDS.containsKey(id.toLowerCase(java.util.Locale.ROOT));
  }

  static ModelCard card(String id) {
    return CARDS.get(id.toLowerCase(java.util.Locale.ROOT));
  }

  private static byte[] read(String resource) {
    try (InputStream in = BuiltinModels.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("missing classpath resource " + resource));
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }
}
