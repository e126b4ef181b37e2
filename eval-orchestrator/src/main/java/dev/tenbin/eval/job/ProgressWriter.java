package dev.tenbin.eval.job;

import dev.tenbin.core.Cancellation;
import java.io.Writer;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The writer handed to the retrieval classes for their progress lines ("encoding documents with
 * M: 512/5000"): it turns each "done/total" into a progress event instead of printing, and stops
 * the work at its next progress line once the job is cancelled.
 */
final class ProgressWriter extends Writer {
  private static final Pattern FRACTION = Pattern.compile("(\\d+)/(\\d+)\\s*$");
  private final BiConsumer<Long, Long> onProgress;
  private final Cancellation cancellation;
  private final StringBuilder line = new StringBuilder();

  ProgressWriter(BiConsumer<Long, Long> onProgress, Cancellation cancellation) {
    this.onProgress = onProgress;
    this.cancellation = cancellation;
  }

  @Override
  public synchronized void write(char[] buffer, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      char c = buffer[i];
      if (c == '\r' || c == '\n') {
        flushLine();
      } else {
        line.append(c);
      }
    }
  }

  private void flushLine() {
    Matcher m = FRACTION.matcher(line);
    if (m.find()) {
      onProgress.accept(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }
    line.setLength(0);
    cancellation.throwIfCancelled();
  }

  @Override
  public synchronized void flush() {
    flushLine();
  }

  @Override
  public void close() {}
}
