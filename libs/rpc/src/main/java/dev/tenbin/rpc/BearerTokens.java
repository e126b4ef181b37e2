package dev.tenbin.rpc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens a server accepts, read from a file: one token a line, blank lines and lines
 * starting with {@code #} ignored, each token at least {@value #MIN_TOKEN_CHARS} characters without
 * whitespace. Only SHA-256 hashes are kept, and a presented token is compared with every one of
 * them by {@link MessageDigest#isEqual} (constant time, no early exit), so timing tells nothing
 * about which tokens exist.
 *
 * <p>The file is looked at again (modification time, size, file key) at most every {@code recheck};
 * a changed file replaces the tokens without a restart. A file that cannot be read keeps the
 * previous tokens (a rotation caught half-way), and so does a malformed one; a well-formed file
 * without tokens refuses everyone. Tokens are never logged.
 */
public final class BearerTokens {
  private static final Logger log = LoggerFactory.getLogger(BearerTokens.class);

  public static final int MIN_TOKEN_CHARS = 16;
  public static final Duration DEFAULT_RECHECK = Duration.ofSeconds(1);

  private final Path file;
  private final long recheckNanos;
  private volatile State state;

  private record State(List<byte[]> hashes, Stamp stamp, long checkedAt) {}

  private record Stamp(long modifiedNanos, long size, Object fileKey) {}

  private BearerTokens(Path file, Duration recheck, State state) {
    this.file = file;
    this.recheckNanos = recheck.toNanos();
    this.state = state;
  }

  /**
   * Reads {@code file}; a missing, unreadable or token-less file is refused with a clear message.
   */
  public static BearerTokens load(Path file, Duration recheck) {
    Stamp stamp;
    List<byte[]> hashes;
    try {
      stamp = stamp(file);
      hashes = hashes(Files.readString(file, StandardCharsets.UTF_8), file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--auth-token-file " + file + ": cannot read (" + e + ")", e);
    }
    if (hashes.isEmpty()) {
      throw new IllegalArgumentException("--auth-token-file " + file + " holds no token");
    }
    return new BearerTokens(file, recheck, new State(hashes, stamp, System.nanoTime()));
  }

  private static final String BEARER = "Bearer ";

  /**
   * Why a request with this {@code authorization} header value is refused, or null when it names
   * one of the tokens: the one check gRPC ({@link BearerAuthInterceptor}) and HTTP ({@link
   * HttpEndpoint}) calls go through. The message says what to send and nothing about which tokens
   * exist.
   */
  public String refusal(String authorization) {
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return "missing bearer token: send the header 'authorization: Bearer <token>'";
    }
    if (!accepts(authorization.substring(BEARER.length()).strip())) {
      return "invalid bearer token";
    }
    return null;
  }

  /** Whether {@code token} is one of the file's tokens (the file is re-read when it changed). */
  public boolean accepts(String token) {
    byte[] presented = sha256(token == null ? "" : token);
    boolean match = false;
    for (byte[] hash : current().hashes()) {
      match |= MessageDigest.isEqual(hash, presented);
    }
    return match;
  }

  /** What a browser session's value is derived from: HMAC-SHA256 of this label. */
  private static final byte[] SESSION_LABEL =
      "tenbin browser session v1".getBytes(StandardCharsets.UTF_8);

  /**
   * The value of a browser session for {@code token} (hex HMAC-SHA256 keyed by the token's hash),
   * or null when the token is not accepted. A session names no token, and stops being accepted when
   * its token leaves the file; see {@link #acceptsSession}.
   */
  public String session(String token) {
    if (!accepts(token)) {
      return null;
    }
    return java.util.HexFormat.of().formatHex(hmac(sha256(token)));
  }

  /**
   * Whether {@code session} is the session value of one of the file's tokens, compared with every
   * one of them in constant time.
   */
  public boolean acceptsSession(String session) {
    byte[] presented;
    try {
      presented = java.util.HexFormat.of().parseHex(session == null ? "" : session);
    } catch (IllegalArgumentException e) {
      return false;
    }
    boolean match = false;
    for (byte[] hash : current().hashes()) {
      match |= MessageDigest.isEqual(hmac(hash), presented);
    }
    return match;
  }

  private static byte[] hmac(byte[] key) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(SESSION_LABEL);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  /** How many tokens are accepted now. */
  public int size() {
    return current().hashes().size();
  }

  private State current() {
    State seen = state;
    long now = System.nanoTime();
    if (now - seen.checkedAt() < recheckNanos) {
      return seen;
    }
    synchronized (this) {
      seen = state;
      if (now - seen.checkedAt() < recheckNanos) {
        return seen;
      }
      State next;
      try {
        Stamp stamp = stamp(file);
        if (stamp.equals(seen.stamp())) {
          next = new State(seen.hashes(), seen.stamp(), now);
        } else {
          List<byte[]> hashes = hashes(Files.readString(file, StandardCharsets.UTF_8), file);
          next = new State(hashes, stamp, now);
          if (hashes.isEmpty()) {
            log.warn("--auth-token-file {} now holds no token: every call is refused", file);
          } else {
            log.info("--auth-token-file {} reloaded: {} tokens", file, hashes.size());
          }
        }
      } catch (IOException | IllegalArgumentException e) {
        if (seen.stamp() != null) {
          log.warn(
              "--auth-token-file {}: cannot read it, keeping the previous tokens ({})",
              file,
              e.getMessage());
        }
        next = new State(seen.hashes(), null, now);
      }
      state = next;
      return next;
    }
  }

  /** The hashes of the tokens in a file's text; a malformed line is refused without echoing it. */
  static List<byte[]> hashes(String text, Path file) {
    List<byte[]> hashes = new ArrayList<>();
    int lineNumber = 0;
    for (String line : text.split("\n", -1)) {
      lineNumber++;
      String token = line.strip();
      if (token.isEmpty() || token.startsWith("#")) {
        continue;
      }
      if (token.chars().anyMatch(c -> Character.isWhitespace(c) || c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException(
            "--auth-token-file "
                + file
                + " line "
                + lineNumber
                + ": a token is printable ASCII without spaces");
      }
      if (token.length() < MIN_TOKEN_CHARS) {
        throw new IllegalArgumentException(
            "--auth-token-file "
                + file
                + " line "
                + lineNumber
                + ": a token needs at least "
                + MIN_TOKEN_CHARS
                + " characters (e.g. openssl rand -hex 32)");
      }
      hashes.add(sha256(token));
    }
    return List.copyOf(hashes);
  }

  static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static Stamp stamp(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return new Stamp(
        attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS),
        attributes.size(),
        Objects.requireNonNullElse(attributes.fileKey(), ""));
  }
}
