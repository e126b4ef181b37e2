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
   * Prints "\rtenbin: WHAT: done/total" every 512 items or so, and a line end when done; a count
   * told again (a cache and the encoder both reporting the end) is not printed twice.
   */
  static EncodeProgress printingTo(PrintWriter out) {
    String[] last = {""};
    return (what, done, total) -> {
      String line = what + ": " + done + "/" + total;
      synchronized (last) {
        if (line.equals(last[0]) || (done % 512 >= 64 && done != total)) {
          return;
        }
        last[0] = line;
        out.printf("\rtenbin: %s", line);
        if (done == total) {
          out.println();
        }
        out.flush();
      }
    };
  }
}
