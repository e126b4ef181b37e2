package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.eval.taskset.YamlErrors;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Refuses control characters in what a client sends with a job, before anything of it is logged,
 * recorded or used as a path: a name, folder, id or path with a line break (or any C0 or C1 control
 * character, DEL, U+2028 or U+2029) could forge a log line or a line of the job's records, and has
 * no use in any of them.
 *
 * <p>The request's own strings ({@code output_dir}, each task set's {@code name} and {@code
 * base_dir}) may hold none. The YAML texts ({@code spec_yaml}, each task set's {@code yaml}) may
 * hold tabs and line breaks, their layout, but no other; and every key and string value they parse
 * to may hold none, whatever escapes wrote it ({@code name: "x\n..."}), but for the free text of a
 * task set's {@code description} and {@code citation}, which may span lines. Each refusal is
 * INVALID_ARGUMENT naming the field ({@code output_dir}, {@code spec_yaml.retrievers[1]}, {@code
 * task_sets[0].tasks[2].name}) and the character's code point; the value is quoted escaped.
 */
final class RequestText {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** The layout characters a YAML text may hold. */
  private static final String LAYOUT = "\t\n\r";

  /** Task set fields whose values are free text, lines included. */
  private static final Set<String> FREE_TEXT = Set.of("description", "citation");

  private RequestText() {}

  /** Checks every string of {@code request}; throws INVALID_ARGUMENT naming the first bad one. */
  static void check(JobRequest request) {
    plain("output_dir", request.outputDirectory());
    for (int j = 0; j < request.taskSets().size(); j++) {
      JobRequest.TaskSetDocument document = request.taskSets().get(j);
      plain("task_sets[" + j + "].name", document.name());
      plain("task_sets[" + j + "].base_dir", document.baseDirectory());
    }
    yaml("spec_yaml", "spec_yaml.", request.specYaml(), Set.of());
    for (int j = 0; j < request.taskSets().size(); j++) {
      yaml(
          "task_sets[" + j + "].yaml",
          "task_sets[" + j + "].",
          request.taskSets().get(j).yaml(),
          FREE_TEXT);
    }
  }

  private static void plain(String field, String value) {
    refuse(field, value, SafeText.indexOfControl(value, ""));
  }

  private static void yaml(String field, String prefix, String text, Set<String> freeText) {
    refuse(field, text, SafeText.indexOfControl(text, LAYOUT));
    JsonNode root;
    try {
      root = YamlErrors.readTree(YAML, text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return; // not YAML: the parse that follows says where
    }
    if (root != null) {
      walk(prefix, "", root, freeText, false);
    }
  }

  private static void walk(
      String prefix, String path, JsonNode node, Set<String> freeText, boolean free) {
    if (node.isTextual()) {
      String field = prefix + (path.isEmpty() ? "" : path);
      refuse(
          stripDot(field),
          node.asText(),
          SafeText.indexOfControl(node.asText(), free ? LAYOUT : ""));
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(prefix, path + "[" + i + "]", node.get(i), freeText, false);
      }
    } else if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = it.next();
        String key = entry.getKey();
        refuse(stripDot(prefix + path), key, SafeText.indexOfControl(key, ""));
        walk(
            prefix,
            (path.isEmpty() ? "" : path + ".") + key,
            entry.getValue(),
            freeText,
            freeText.contains(key));
      }
    }
  }

  private static String stripDot(String field) {
    return field.endsWith(".") ? field.substring(0, field.length() - 1) : field;
  }

  private static void refuse(String field, String value, int at) {
    if (at < 0) {
      return;
    }
    throw new InvalidInputException(
        field,
        field
            + ": "
            + SafeText.quote(value)
            + String.format(
                java.util.Locale.ROOT,
                " holds the control character U+%04X",
                (int) value.charAt(at))
            + "; names, folders, ids and paths may hold none");
  }
}
