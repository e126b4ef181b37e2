package dev.tenbin.eval.provenance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The versions of this build of Tenbin and of the libraries that decide its results, as the Maven
 * build stamped them.
 */
public final class TenbinVersion {
  private static final Properties PROPERTIES = load();

  private TenbinVersion() {}

  public static String get() {
    return PROPERTIES.getProperty("version", "unknown");
  }

  /**
   * The source commit this build was made from: the 7-character sha of the last commit that changed
   * anything outside k8s/, with "-dirty" when files outside k8s/ differed from it; "unknown" when
   * built without git.
   */
  public static String commit() {
    return PROPERTIES.getProperty("commit", "unknown");
  }

  /**
   * The container image tag the image build gives this source: {@code <version without
   * -SNAPSHOT>-<commit>}, e.g. 0.1.0-1a2b3c4; the Helm chart's appVersion names it.
   */
  public static String imageTag() {
    return PROPERTIES.getProperty("imageTag", "unknown");
  }

  /** What {@code tenbin --version} prints after "tenbin ": version, commit and image tag. */
  public static String describe() {
    return get() + " (commit " + commit() + ", image tag " + imageTag() + ")";
  }

  /** The Lucene release the BM25 index is built with. */
  public static String lucene() {
    return PROPERTIES.getProperty("lucene", "unknown");
  }

  /** The DJL Hugging Face tokenizers release the encoders tokenize with. */
  public static String tokenizers() {
    return PROPERTIES.getProperty("tokenizers", "unknown");
  }

  /** The ONNX Runtime release the encoders run on. */
  public static String onnxRuntime() {
    return PROPERTIES.getProperty("onnxruntime", "unknown");
  }

  private static Properties load() {
    Properties properties = new Properties();
    try (InputStream in = TenbinVersion.class.getResourceAsStream("tenbin.properties")) {
      if (in != null) {
        properties.load(in);
      }
      return properties;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
