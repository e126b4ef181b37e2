package dev.tenbin.drill;

import java.io.PrintWriter;

/** Where a drill reports its progress, one line per step (stderr for the CLI). */
@FunctionalInterface
public interface DrillLog {
  void line(String text);

  static DrillLog printingTo(PrintWriter out) {
    return text -> {
      out.println("tenbin drill: " + text);
      out.flush();
    };
  }
}
