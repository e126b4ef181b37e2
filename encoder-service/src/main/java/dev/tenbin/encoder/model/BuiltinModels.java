package dev.tenbin.encoder.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The models packaged in the {@code dev.langchain4j:langchain4j-embeddings-*} jars on the
 * classpath. Only the ONNX graph and {@code tokenizer.json} inside each jar are used; the cards
 * (pooling, prompts) are Tenbin's. These models are not Matryoshka-trained: truncation to 256, 128
 * and 64 leading dimensions is allowed for efficiency studies.
 */
public final class BuiltinModels {
  private static final String BGE_QUERY =
      "Represent this sentence for searching relevant passages: ";
  private static final List<Integer> TRUNCATIONS = List.of(256, 128, 64);

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
              384,
              TRUNCATIONS,
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
