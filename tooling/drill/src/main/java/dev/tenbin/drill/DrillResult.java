package dev.tenbin.drill;

/**
 * One row of a drill's report, as RELIABILITY.md tables it.
 *
 * @param test what was tried (e.g. "SIGTERM mid-encode")
 * @param load the load or input (e.g. "tenbin eval, dense:all-minilm-l6-v2, 600 documents")
 * @param faults the faults injected (e.g. "50 × SIGTERM at a random point of the encode")
 * @param result what happened (e.g. "50 clean exits, 0 crashes")
 * @param passed whether the result is the one the drill requires
 */
public record DrillResult(String test, String load, String faults, String result, boolean passed) {
  /** A Markdown table row. */
  public String markdownRow() {
    return "| "
        + test
        + " | "
        + load
        + " | "
        + faults
        + " | "
        + result
        + " | "
        + (passed ? "pass" : "FAIL")
        + " |";
  }
}
