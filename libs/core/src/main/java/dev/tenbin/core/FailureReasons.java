package dev.tenbin.core;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;

/** Why a call failed, in words a message can carry: never "null". */
public final class FailureReasons {
  private FailureReasons() {}

  /**
   * The first message along the cause chain that is not a copied cause ({@code new
   * IOException(cause)} copies {@code cause.toString()} as its message), or a plain name for the
   * exceptions that have none ("connection refused", "timed out", "unknown host", else the class).
   */
  public static String of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage();
      boolean copied = t.getCause() != null && t.getCause().toString().equals(message);
      if (message != null && !message.isBlank() && !copied) {
        return message;
      }
    }
    Throwable root = failure;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return switch (root) {
      case ConnectException ignored -> "connection refused";
      case HttpTimeoutException ignored -> "timed out";
      case UnknownHostException ignored -> "unknown host";
      case UnresolvedAddressException ignored -> "unknown host";
      default -> root.getClass().getSimpleName();
    };
  }
}
