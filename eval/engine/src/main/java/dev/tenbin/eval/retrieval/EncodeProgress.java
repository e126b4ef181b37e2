package dev.tenbin.eval.retrieval;

import java.io.PrintWriter;

/**
 * Progress of a long encode (documents of a corpus, a LightRetriever vocabulary): what is being
 * encoded, how many items are done of how many. A job turns it into progress bars and checks for
 * cancellation in it; {@code tenbin eval} prints it.
 */
@FunctionalInterface
public interface EncodeProgress {
  EncodeProgress NONE = (what, done, total) -> {};

  void update(String what, long done, long total);

  /**
   * Prints "\rtenbin: WHAT: done/total" every 512 items or so, and a line end when done, where
   * stderr is a terminal (the launcher says so with {@code -Dtenbin.stderr.terminal=true}); into a
   * file or a pipe only the finished line, so a log holds one line per encode. A count told again
   * (a cache and the encoder both reporting the end) is not printed twice.
   */
  static EncodeProgress printingTo(PrintWriter out) {
    return printingTo(out, Boolean.getBoolean("tenbin.stderr.terminal"));
  }

  /** As {@link #printingTo(PrintWriter)}, with or without the in-place updates. */
  static EncodeProgress printingTo(PrintWriter out, boolean terminal) {
    String[] last = {""};
    return (what, done, total) -> {
      String line = what + ": " + done + "/" + total;
      synchronized (last) {
        if (line.equals(last[0]) || (done != total && (!terminal || done % 512 >= 64))) {
          return;
        }
        last[0] = line;
        if (terminal) {
          out.printf("\rtenbin: %s", line);
        } else {
          out.printf("tenbin: %s", line);
        }
        if (done == total) {
          out.println();
        }
        out.flush();
      }
    };
  }
}
