package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.tenbin.eval.confine.MessageText;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A YAML syntax error as one line without the source text: {@code line 3, column 5: expected
 * <block end>, but found '-'}. The YAML parser's own message quotes the offending lines (and so
 * would echo a file's contents to whoever sent or named it); this keeps only the position and the
 * problem, cut to a readable length.
 */
public final class YamlErrors {
  private YamlErrors() {}

  public static String describe(JsonProcessingException error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof MarkedYAMLException marked) {
        Mark mark = marked.getProblemMark() != null ? marked.getProblemMark() : marked.getContextMark();
        String problem = marked.getProblem() != null ? marked.getProblem() : marked.getContext();
        return position(mark == null ? -1 : mark.getLine() + 1, mark == null ? -1 : mark.getColumn() + 1)
            + MessageText.cut(problem, MessageText.MAX_SHOWN);
      }
    }
    JsonLocation location = error.getLocation();
    String original = error.getOriginalMessage() == null ? "" : error.getOriginalMessage().lines().findFirst().orElse("");
    return position(location == null ? -1 : location.getLineNr(), location == null ? -1 : location.getColumnNr())
        + MessageText.cut(original, MessageText.MAX_SHOWN);
  }

  private static String position(int line, int column) {
    if (line < 1) {
      return "";
    }
    return "line " + line + (column < 1 ? "" : ", column " + column) + ": ";
  }
}
