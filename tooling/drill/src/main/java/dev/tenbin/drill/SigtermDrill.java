package dev.tenbin.drill;

import dev.tenbin.scoring.beir.SyntheticBeir;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * SIGTERM in the middle of an encode: {@code tenbin eval --retriever dense:MODEL} runs in a child
 * JVM and gets SIGTERM at a random moment after its document encode has started. Every run must end
 * by the JVM's normal shutdown (exit 143, or 0/1 if it got there first), never a native crash.
 */
public final class SigtermDrill {
  /** A progress line of the document encode that has not reached its total yet. */
  private static final Pattern ENCODING = Pattern.compile("tenbin: [^\\r\\n:]*: (\\d+)/(\\d+)");

  private SigtermDrill() {}

  public static DrillResult run(
      Path work, String model, int repeats, int documents, long seed, DrillLog log)
      throws InterruptedException {
    Path dataset = SyntheticBeir.write(work.resolve("data"), documents, 120, 20, seed);
    SplittableRandom random = new SplittableRandom(seed);
    int crashes = 0;
    int signalled = 0;
    int finishedFirst = 0;
    int hung = 0;
    for (int run = 1; run <= repeats; run++) {
      String name = "sigterm-" + run;
      try (ChildTenbin child =
          ChildTenbin.start(
              work,
              name,
              List.of(
                  "eval",
                  "--dataset",
                  dataset.toString(),
                  "--retriever",
                  "dense:" + model,
                  "--variant",
                  "base",
                  "--json",
                  "--cache-dir",
                  work.resolve("cache-" + run).toString()))) {
        boolean encoding =
            child
                .awaitOutput(ENCODING, Duration.ofMinutes(3))
                .filter(m -> Long.parseLong(m.group(1)) < Long.parseLong(m.group(2)))
                .isPresent();
        if (encoding) {
          Thread.sleep(random.nextInt(400));
          signalled++;
          child.terminate();
        }
        if (!encoding && child.isAlive()) {
          // The encode never showed progress in time: not a trial of this drill.
          child.kill();
          child.awaitExit(Duration.ofSeconds(30));
          log.line(name + ": no encode progress within 3 minutes; skipped");
          continue;
        }
        int exit = child.awaitExit(Duration.ofSeconds(90));
        if (exit == -1) {
          hung++;
          child.kill();
          child.awaitExit(Duration.ofSeconds(30));
        } else if (!encoding) {
          finishedFirst++;
        }
        if (child.crashed()) {
          crashes++;
          log.line(name + ": CRASH (exit " + exit + "), see " + child.log());
        } else if (exit == -1) {
          log.line(name + ": still running 90 s after SIGTERM (hang), killed");
        } else {
          log.line(
              name
                  + ": exit "
                  + exit
                  + (encoding ? " after SIGTERM mid-encode" : " (finished before the signal)"));
        }
      }
    }
    return new DrillResult(
        "SIGTERM mid-encode",
        "`tenbin eval --retriever dense:" + model + "`, " + documents + " synthetic documents",
        repeats + " runs, SIGTERM at a random point (0-400 ms) after the encode started",
        signalled
            + " signalled mid-encode, "
            + finishedFirst
            + " finished first, "
            + hung
            + " hung, "
            + crashes
            + " crashes",
        crashes == 0 && hung == 0 && signalled > 0);
  }
}
