package dev.tenbin.rpc;

import io.grpc.CallCredentials;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Status;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.Executor;

/**
 * Sends {@code authorization: Bearer <token>} with every call, the token being the first one in a
 * file (one a line, {@code #} comments; the server's token file works as is). The file is read
 * again when its modification time or size changes, so a rotated token is picked up without a
 * restart. A token is never sent in plaintext to a host that is not loopback: such a call fails
 * with {@code UNAUTHENTICATED} before anything leaves the process.
 */
public final class BearerTokenCredentials extends CallCredentials {
  private final Path file;
  private volatile Cached cached;

  private record Cached(FileTime modified, long size, String token) {}

  public BearerTokenCredentials(Path file) {
    this.file = file;
    token(); // a missing or empty file is a clear error now rather than at the first call
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    if (requestInfo.getSecurityLevel() == SecurityLevel.NONE
        && !loopback(requestInfo.getAuthority())) {
      applier.fail(
          Status.UNAUTHENTICATED.withDescription(
              "refusing to send a bearer token in plaintext to "
                  + requestInfo.getAuthority()
                  + ": use TLS (--tls-ca, or --tls for the system's CAs)"));
      return;
    }
    String token;
    try {
      token = token();
    } catch (IllegalArgumentException e) {
      applier.fail(Status.UNAUTHENTICATED.withDescription(e.getMessage()));
      return;
    }
    Metadata headers = new Metadata();
    headers.put(BearerAuthInterceptor.AUTHORIZATION, "Bearer " + token);
    applier.apply(headers);
  }

  /** The file's first token (read again when the file changes). */
  String token() {
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      long size = Files.size(file);
      Cached seen = cached;
      if (seen != null && seen.modified().equals(modified) && seen.size() == size) {
        return seen.token();
      }
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String token = line.strip();
        if (!token.isEmpty() && !token.startsWith("#")) {
          cached = new Cached(modified, size, token);
          return token;
        }
      }
      throw new IllegalArgumentException("auth token file " + file + " holds no token");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the auth token file " + file + " (" + e + ")", e);
    }
  }

  private static boolean loopback(String authority) {
    if (authority == null) {
      return false;
    }
    try {
      String host = URI.create("//" + authority).getHost();
      return host != null && ServerSecurity.isLoopback(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
