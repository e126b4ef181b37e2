package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a dense retriever sees documents longer than its encoder's maximum length, named as a prefix
 * of the variant: none (truncate: the encoder cuts at its maximum length), {@code firstpW} (only
 * the first W tokens), or {@code maxpWsS} (windows of W tokens every S tokens, S defaulting to W; a
 * document scores the maximum over its windows). E.g. {@code maxp256s128}, {@code
 * maxp256s128_int8}, {@code firstp256}. Windows are cut in the model's own tokenizer tokens and map
 * back to the text by the tokens' character offsets, so a window is a substring of the text; every
 * window is encoded as {@code title + " " + window} (the title repeated, as MaxP does).
 *
 * @param mode truncate, firstp or maxp
 * @param window tokens per window (0 for truncate)
 * @param stride tokens between window starts (0 for truncate; the window for firstp)
 */
public record Chunking(Mode mode, int window, int stride) {
  /** The three ways. */
  public enum Mode {
    TRUNCATE,
    FIRSTP,
    MAXP
  }

  public static final Chunking TRUNCATE = new Chunking(Mode.TRUNCATE, 0, 0);

  private static final Pattern PREFIX =
      Pattern.compile("(maxp|firstp)(\\d{1,6})(?:s(\\d{1,6}))?(?:_(.+))?");

  /** The chunking a variant name starts with ({@link #TRUNCATE} when none). */
  public static Chunking ofVariant(String variant) {
    Matcher m = PREFIX.matcher(variant);
    if (!m.matches()) {
      return TRUNCATE;
    }
    int window = Integer.parseInt(m.group(2));
    boolean maxp = m.group(1).equals("maxp");
    if (!maxp && m.group(3) != null) {
      throw new InvalidInputException(
          "--variant", "variant '" + variant + "': firstpW takes no stride (sS is for maxp)");
    }
    int stride = m.group(3) == null ? window : Integer.parseInt(m.group(3));
    if (window < 1 || stride < 1 || stride > window) {
      throw new InvalidInputException(
          "--variant",
          "variant '"
              + variant
              + "': a window needs at least 1 token and a stride within 1..window, got window "
              + window
              + ", stride "
              + stride);
    }
    return new Chunking(maxp ? Mode.MAXP : Mode.FIRSTP, window, stride);
  }

  /** The efficiency part of a variant name after its chunking prefix ("base" when none). */
  public static String efficiency(String variant) {
    Matcher m = PREFIX.matcher(variant);
    if (!m.matches()) {
      return variant;
    }
    return m.group(4) == null ? "base" : m.group(4);
  }

  /**
   * The variant-name prefix of this chunking: {@code firstpW}, {@code maxpW} or {@code maxpWsS}.
   */
  public String prefix() {
    return switch (mode) {
      case TRUNCATE -> throw new IllegalStateException("truncation has no prefix");
      case FIRSTP -> "firstp" + window;
      case MAXP -> "maxp" + window + (stride == window ? "" : "s" + stride);
    };
  }

  public boolean truncates() {
    return mode == Mode.TRUNCATE;
  }
}
