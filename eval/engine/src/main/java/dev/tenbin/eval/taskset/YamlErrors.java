package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.SafeText;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A YAML syntax error as one line without the source text: {@code line 3, column 5: expected <block
 * end>, but found '-'}. The YAML parser's own message quotes the offending lines (and so would echo
 * a file's contents to whoever sent or named it); this keeps only the position and the problem, cut
 * to a readable length.
 */
public final class YamlErrors {
  private YamlErrors() {}

  /**
   * Parses YAML text. The YAML parser can fail on some inputs with an unchecked exception of its
   * own (SnakeYAML's reader throws IndexOutOfBoundsException on certain characters at its buffer
   * boundary); that is reported like any syntax error, as a {@link JsonProcessingException}.
   */
  public static JsonNode readTree(ObjectMapper yaml, String text) throws JsonProcessingException {
    try {
      return yaml.readTree(text);
    } catch (JsonProcessingException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      throw new JsonParseException(
          null, "the YAML parser cannot read this text (" + e.getClass().getSimpleName() + ")");
    }
  }

  public static String describe(JsonProcessingException error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof MarkedYAMLException marked) {
        Mark mark =
            marked.getProblemMark() != null ? marked.getProblemMark() : marked.getContextMark();
        String problem = marked.getProblem() != null ? marked.getProblem() : marked.getContext();
        return position(
                mark == null ? -1 : mark.getLine() + 1, mark == null ? -1 : mark.getColumn() + 1)
            + SafeText.escaped(problem, SafeText.MAX_QUOTED_CHARS);
      }
    }
    JsonLocation location = error.getLocation();
    String original =
        error.getOriginalMessage() == null
            ? ""
            : error.getOriginalMessage().lines().findFirst().orElse("");
    return position(
            location == null ? -1 : location.getLineNr(),
            location == null ? -1 : location.getColumnNr())
        + SafeText.escaped(original, SafeText.MAX_QUOTED_CHARS);
  }

  private static String position(int line, int column) {
    if (line < 1) {
      return "";
    }
    return "line " + line + (column < 1 ? "" : ", column " + column) + ": ";
  }
}
