package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import java.util.List;
import java.util.Locale;

/** The formats a leaderboard can be written in. */
public enum ReportFormat {
  TABLE,
  MARKDOWN,
  HTML,
  JSON;

  /** Renders a leaderboard in this format (Markdown without chart links). */
  public String render(Leaderboard board) {
    return switch (this) {
      case TABLE -> TerminalTable.render(board);
      case MARKDOWN -> MarkdownReport.render(board, List.of());
      case HTML -> HtmlReport.render(board);
      case JSON -> LeaderboardJson.text(board, true) + "\n";
    };
  }

  /** Parses "table", "markdown", "html" or "json" (any case). */
  public static ReportFormat parse(String text) {
    return valueOf(text.trim().toUpperCase(Locale.ROOT));
  }
}
