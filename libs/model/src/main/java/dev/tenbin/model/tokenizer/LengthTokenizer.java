package dev.tenbin.model.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.Lifetime;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * A tokenizer that counts tokens and finds their spans, without special tokens or truncation: the
 * one tokenizer that counts document lengths for every system of a position analysis (PosIR uses
 * one tokenizer for all models), and the tokenizer a long document is cut into windows with ({@code
 * maxp}/{@code firstp} dense variants, then the model's own). It is a built-in model's {@code
 * tokenizer.json} (by id, as the langchain4j jars carry it) or a {@code tokenizer.json} path.
 * Counts have no special tokens and no truncation. As {@link TextTokenizer}, every native call
 * holds a lease, so {@link #close()} frees the native tokenizer only once no thread is inside it.
 */
public final class LengthTokenizer implements AutoCloseable {
  /** The default: bge-small-en-v1.5's WordPiece vocabulary. */
  public static final String DEFAULT = "bge-small-en-v1.5";

  private final String name;
  private final HuggingFaceTokenizer tokenizer;
  private final Lifetime lifetime;

  private LengthTokenizer(String name, byte[] tokenizerJson) {
    this.name = name;
    try {
      this.tokenizer =
          NativeTokenizers.open(
              tokenizerJson,
              Map.of(
                  "addSpecialTokens", "false",
                  "truncation", "false",
                  "padding", "false"));
    } catch (IOException | RuntimeException e) {
      throw new InvalidInputException(
          "--length-tokenizer", "cannot load the tokenizer " + name + ": " + e.getMessage());
    }
    this.lifetime = new Lifetime("the length tokenizer", tokenizer::close);
  }

  /**
   * The tokenizer {@code spec} names: a built-in model id, or a path to a {@code tokenizer.json}
   * (or to a folder holding one).
   */
  public static LengthTokenizer open(String spec) {
    String id = spec.strip().toLowerCase(Locale.ROOT);
    try (InputStream in =
        LengthTokenizer.class.getClassLoader().getResourceAsStream(id + "-tokenizer.json")) {
      if (in != null && !id.contains("/")) {
        return new LengthTokenizer(id, in.readAllBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path path = Path.of(spec);
    if (Files.isDirectory(path)) {
      path = path.resolve("tokenizer.json");
    }
    if (!Files.isRegularFile(path)) {
      throw new InvalidInputException(
          "--length-tokenizer",
          "--length-tokenizer must be a built-in model id (e.g. "
              + DEFAULT
              + ") or a tokenizer.json path; found neither for '"
              + spec
              + "'");
    }
    try {
      return new LengthTokenizer(path.toString(), Files.readAllBytes(path));
    } catch (IOException e) {
      throw new InvalidInputException("--length-tokenizer", "cannot read " + path);
    }
  }

  /** Whether {@code spec} names a built-in model's tokenizer (not a path). */
  public static boolean isBuiltIn(String spec) {
    String id = spec.strip().toLowerCase(Locale.ROOT);
    return !id.contains("/")
        && LengthTokenizer.class.getClassLoader().getResource(id + "-tokenizer.json") != null;
  }

  /**
   * What identifies the counts {@code spec} gives, for cell fingerprints: a built-in id as it is, a
   * {@code tokenizer.json} by the SHA-256 of its bytes (so an edited file is a new identity).
   */
  public static String identity(String spec) {
    if (isBuiltIn(spec)) {
      return spec.strip().toLowerCase(Locale.ROOT);
    }
    Path path = Path.of(spec);
    if (Files.isDirectory(path)) {
      path = path.resolve("tokenizer.json");
    }
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path));
      return "sha256:" + java.util.HexFormat.of().formatHex(digest);
    } catch (IOException e) {
      throw new InvalidInputException(
          "positions.tokenizer",
          "positions.tokenizer must be a built-in model id (e.g. "
              + DEFAULT
              + ") or a tokenizer.json path; cannot read '"
              + spec
              + "'");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What {@link #open} was given, as the analysis records it. */
  public String name() {
    return name;
  }

  /** Tokens of {@code text}, without special tokens or truncation. */
  public int count(String text) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return tokenizer.encode(text).getIds().length;
    }
  }

  /**
   * The character span (code points, end exclusive) of each token of {@code text}, in order; a
   * window of tokens i..j is the text from the start of i to the end of j.
   */
  public int[][] tokenSpans(String text) {
    ai.djl.huggingface.tokenizers.jni.CharSpan[] spans;
    try (Lifetime.Lease lease = lifetime.acquire()) {
      spans = tokenizer.encode(text).getCharTokenSpans();
    }
    int[][] out = new int[spans.length][];
    for (int i = 0; i < spans.length; i++) {
      out[i] = spans[i] == null ? null : new int[] {spans[i].getStart(), spans[i].getEnd()};
    }
    return out;
  }

  /** Refuses new calls, waits for the running ones, then frees the native tokenizer. */
  @Override
  public void close() {
    lifetime.close();
  }
}
