package dev.tenbin.model;

import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.model.hub.HubDownloader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which models a service may load ({@code --allow-models}) and how long an unused one stays loaded
 * ({@code --model-idle-seconds}).
 *
 * <p>Every model has a source: {@code builtin} (packaged with Tenbin), {@code local} (a folder in
 * {@code --models-dir}) or {@code hub} (downloaded from a Hugging Face hub, named {@code
 * hub:OWNER/NAME@REVISION}). A pattern is a glob ({@code *} any characters, {@code ?} one;
 * case-insensitive) over:
 *
 * <ul>
 *   <li>the model id, for built-in and local models: {@code bge-*}, {@code e5-small-v2};
 *   <li>{@code SOURCE:ID}: {@code builtin:*}, {@code local:my-model}, {@code hub:BAAI/*} (any
 *       repository of BAAI, any revision), {@code hub:*} (every hub download).
 * </ul>
 *
 * A pattern without a source never allows a hub download: hub downloads are off unless a {@code
 * hub:} pattern names them. Network servers default to {@link #DEFAULT_PATTERNS}; the services
 * embedded in {@code tenbin run/eval} (the user's own process) allow everything.
 *
 * @param allow the patterns; a model matching any of them may be loaded
 * @param idleUnload a model unused this long is unloaded; zero = never
 */
public record ModelPolicy(List<String> allow, Duration idleUnload) {
  /** Built-in models and the models in {@code --models-dir}; no hub downloads. */
  public static final List<String> DEFAULT_PATTERNS = List.of("builtin:*", "local:*");

  /** Default idle time of network servers. */
  public static final Duration DEFAULT_IDLE = Duration.ofMinutes(10);

  /** Where a model comes from. */
  public enum Source {
    BUILTIN,
    LOCAL,
    HUB;

    String prefix() {
      return name().toLowerCase(Locale.ROOT) + ":";
    }
  }

  public ModelPolicy {
    allow = List.copyOf(allow);
    if (allow.isEmpty()) {
      throw new IllegalArgumentException("--allow-models needs at least one pattern");
    }
    for (String pattern : allow) {
      if (pattern == null || pattern.isBlank()) {
        throw new IllegalArgumentException("--allow-models patterns must not be empty");
      }
    }
    if (idleUnload == null || idleUnload.isNegative()) {
      throw new IllegalArgumentException("--model-idle-seconds must not be negative");
    }
  }

  /** Everything, never unloaded: the embedded services of {@code tenbin run/eval}. */
  public static ModelPolicy allowAll() {
    return new ModelPolicy(List.of("builtin:*", "local:*", "hub:*"), Duration.ZERO);
  }

  /** A network server's policy from its flags; no patterns means {@link #DEFAULT_PATTERNS}. */
  public static ModelPolicy of(List<String> patterns, long idleSeconds) {
    List<String> split = new ArrayList<>();
    for (String pattern : patterns == null ? List.<String>of() : patterns) {
      for (String part : pattern.split(",")) {
        if (!part.isBlank()) {
          split.add(part.trim());
        }
      }
    }
    if (idleSeconds < 0) {
      throw new IllegalArgumentException(
          "--model-idle-seconds must not be negative, got " + idleSeconds);
    }
    return new ModelPolicy(
        split.isEmpty() ? DEFAULT_PATTERNS : split, Duration.ofSeconds(idleSeconds));
  }

  /** Whether a model of this source and id may be loaded. */
  public boolean allows(Source source, String id) {
    String qualified = source == Source.HUB ? id : source.prefix() + id;
    for (String pattern : allow) {
      boolean sourced =
          pattern.regionMatches(true, 0, "builtin:", 0, 8)
              || pattern.regionMatches(true, 0, "local:", 0, 6)
              || pattern.regionMatches(true, 0, "hub:", 0, 4);
      if (sourced
          ? glob(pattern).matcher(qualified).matches()
          : source != Source.HUB && glob(pattern).matcher(id).matches()) {
        return true;
      }
    }
    return false;
  }

  /** Longest model id accepted (hub ids included: {@code hub:OWNER/NAME@REVISION}). */
  public static final int MAX_ID_LENGTH = 256;

  /** Built-in and local model ids: a folder name in {@code --models-dir}, ASCII. */
  private static final Pattern LOCAL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]*");

  /**
   * INVALID_ARGUMENT naming {@code field} unless {@code id} can name a model at all: not blank, at
   * most {@link #MAX_ID_LENGTH} characters, and either {@code hub:OWNER/NAME@REVISION} (checked by
   * {@link HubDownloader.Reference#parse}) or a built-in or local id of ASCII letters, digits and
   * {@code . _ + -} (it becomes a folder name: no separators, no {@code ..}, no control
   * characters).
   */
  public static void requireWellFormed(String id, String field) {
    if (id == null || id.isBlank()) {
      throw new dev.tenbin.core.InvalidInputException(field, field + " is required");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw new dev.tenbin.core.InvalidInputException(
          field,
          field + " has " + id.length() + " characters; model ids have at most " + MAX_ID_LENGTH);
    }
    if (id.startsWith("hub:")) {
      HubDownloader.Reference.parse(id.substring(4));
      return;
    }
    if (!LOCAL_ID.matcher(id).matches() || id.contains("..")) {
      throw new dev.tenbin.core.InvalidInputException(
          field,
          field
              + " must be a built-in or local model id (ASCII letters, digits, '.', '_', '+', '-') or"
              + " hub:OWNER/NAME@REVISION");
    }
  }

  /**
   * INVALID_ARGUMENT naming {@code field} for an id no model can have ({@link #requireWellFormed}),
   * PERMISSION_DENIED unless the model may be loaded.
   */
  public void check(Source source, String id, String field) {
    requireWellFormed(id, field);
    if (!allows(source, id)) {
      throw new PermissionDeniedException(
          field,
          "model '"
              + abbreviate(id)
              + "' ("
              + source.name().toLowerCase(Locale.ROOT)
              + ") is not allowed on this service; its --allow-models patterns are "
              + allow
              + (source == Source.HUB ? " (hub downloads need a hub: pattern)" : ""));
    }
  }

  private static String abbreviate(String id) {
    return id.length() <= 200 ? id : id.substring(0, 200) + "…";
  }

  private static Pattern glob(String pattern) {
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (char c : pattern.toCharArray()) {
      if (c == '*' || c == '?') {
        if (!literal.isEmpty()) {
          regex.append(Pattern.quote(literal.toString()));
          literal.setLength(0);
        }
        regex.append(c == '*' ? ".*" : ".");
      } else {
        literal.append(c);
      }
    }
    if (!literal.isEmpty()) {
      regex.append(Pattern.quote(literal.toString()));
    }
    return Pattern.compile(
        regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE | Pattern.DOTALL);
  }
}
