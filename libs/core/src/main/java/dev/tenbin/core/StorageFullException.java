package dev.tenbin.core;

import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A write failed because the disk (or the writer's quota) is full, and nothing of it was kept:
 * {@code RESOURCE_EXHAUSTED}, with the cause in the message and no retry delay, since it passes
 * only when an operator frees space (a client does not retry it by itself).
 */
public final class StorageFullException extends TenbinException {
  public StorageFullException(String message, Throwable cause) {
    super(null, message, cause);
  }

  /**
   * The I/O failure among {@code failure} and its causes that says the disk or a quota is full
   * (Linux's ENOSPC "No space left on device" and EDQUOT "Disk quota exceeded", Windows' "There is
   * not enough space on the disk"), if there is one.
   */
  public static Optional<IOException> diskFull(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof IOException io && saysFull(io.getMessage())) {
        return Optional.of(io);
      }
    }
    return Optional.empty();
  }

  private static boolean saysFull(String message) {
    if (message == null) {
      return false;
    }
    String text = message.toLowerCase(Locale.ROOT);
    return text.contains("no space left on device")
        || text.contains("disk quota exceeded")
        || text.contains("not enough space on the disk");
  }
}
