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
   * A line worth keeping in the log, such as where an interrupted encode resumes; ignored unless
   * the progress goes to a log.
   */
  default void note(String line) {}

  /** This progress, with its notes going to {@code log} as well. */
  default EncodeProgress notingTo(java.util.function.Consumer<String> log) {
    EncodeProgress self = this;
    return new EncodeProgress() {
      @Override
      public void update(String what, long done, long total) {
        self.update(what, done, total);
      }

      @Override
      public void note(String line) {
        self.note(line);
        log.accept(line);
      }
    };
  }

  /**
   * Prints "\rtenbin: WHAT: done/total" every 512 items or so, and a line end when done, where
   * stderr is a terminal (the launcher says so with {@code -Dtenbin.stderr.terminal=true}); into a
   * file or a pipe only the finished line, so a log holds one line per encode. A count told again
   * (a cache and the encoder both reporting the end) is not printed twice. A {@link #note} is
   * printed on a line of its own.
   */
  static EncodeProgress printingTo(PrintWriter out) {
    return printingTo(out, Boolean.getBoolean("tenbin.stderr.terminal"));
  }

  /** As {@link #printingTo(PrintWriter)}, with or without the in-place updates. */
  static EncodeProgress printingTo(PrintWriter out, boolean terminal) {
    String[] last = {""};
    // Whether an in-place line is printed and not yet ended.
    boolean[] open = {false};
    EncodeProgress updates =
        (what, done, total) -> {
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
            open[0] = done != total;
            if (done == total) {
              out.println();
            }
            out.flush();
          }
        };
    return updates.notingTo(
        line -> {
          synchronized (last) {
            if (open[0]) {
              out.println();
              open[0] = false;
            }
            out.println("tenbin: " + line);
            out.flush();
          }
        });
  }
}
