package dev.tenbin.figures;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One page of figures, BENCHMARKS.md or RELIABILITY.md, read from its data and rendered as
 * Markdown. The data of page NAME is {@code figures/NAME.yaml} (the title, the introduction, the
 * order of the sections and, for a page with one, the "At a glance" table's header) and one file a
 * section, {@code figures/NAME/SECTION.yaml}: its title, the headline rows it gives the "At a
 * glance" table, and its body, a list of blocks (prose, the commands that measured the figures,
 * what they are compared with, the machine and commit, and tables whose rows are values).
 * figures/README.md describes the format.
 */
final class FigurePage {
  /** A page: what {@code figures/NAME.yaml} holds, with its sections read. */
  record Page(
      String name,
      String title,
      List<Block> intro,
      List<String> glanceColumns,
      List<Section> sections) {}

  /** A section: one heading and what follows it up to the next. */
  record Section(
      String id,
      String title,
      int level,
      String shortTitle,
      List<Glance> glance,
      List<Block> body) {
    String anchor() {
      return anchorOf(title);
    }
  }

  /** A headline row of the "At a glance" table; it links to its section and to {@code also}. */
  record Glance(String figure, String comparison, List<String> also) {}

  /** A part of a section's body. */
  sealed interface Block {}

  /** Markdown prose, as written. */
  record Text(String markdown) implements Block {}

  /** The commands that measured the section's figures: a {@code bash} code block. */
  record Commands(String lines) implements Block {}

  /** What the figures are compared with: "Compared with: …". */
  record Compared(String markdown) implements Block {}

  /** The machine and commit of a table without columns for them: "Machine: M. Commit: C. NOTE". */
  record Measured(String machine, String commit, String note) implements Block {}

  /** Machines, each with its name (or names) and what it is: a list of definitions. */
  record Machines(List<Machine> machines) implements Block {}

  /** A machine of {@link Machines}. */
  record Machine(List<String> names, String description) {}

  /** A table: its columns and its rows, one value (or null, shown as "—") per column. */
  record Table(List<Column> columns, List<List<JsonNode>> rows) implements Block {}

  /**
   * A column: its header, whether its cells are right-aligned, the template a row's list of values
   * fills ({@code {}} for each value), whether positive numbers carry a plus sign, and whether
   * numbers of four digits and more are grouped by thousands. With {@code join}, a cell is a list
   * of such lists, each filling the template, joined by {@code join}.
   */
  record Column(
      String name, boolean right, String format, boolean signed, boolean grouping, String join) {}

  static final String MINUS = "\u2212";
  private static final Pattern NAMED = Pattern.compile("\\$\\{([a-z0-9_]+)(:\\+)?}");

  private static final YAMLMapper YAML = yamlMapper();

  private static YAMLMapper yamlMapper() {
    YAMLMapper mapper = new YAMLMapper();
    // Numbers keep the digits they are written with: 0.7320 stays 0.7320.
    mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    mapper.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
    return mapper;
  }

  private FigurePage() {}

  /** Reads page {@code name} from {@code figures}. */
  static Page read(Path figures, String name) {
    Path pageFile = figures.resolve(name + ".yaml");
    JsonNode page = load(pageFile);
    Fields fields = new Fields(pageFile.toString(), page);
    String title = fields.text("title");
    List<Block> intro = new ArrayList<>();
    JsonNode introBlocks = fields.node("intro");
    if (introBlocks != null) {
      for (JsonNode block : introBlocks) {
        intro.add(block(pageFile.toString(), block));
      }
    }
    List<String> glanceColumns = new ArrayList<>();
    JsonNode glance = fields.node("glance");
    if (glance != null) {
      for (JsonNode column : glance) {
        glanceColumns.add(column.asText());
      }
    }
    List<Section> sections = new ArrayList<>();
    for (JsonNode id : fields.required("sections")) {
      Path file = figures.resolve(name).resolve(id.asText() + ".yaml");
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            pageFile + " lists section " + id.asText() + ", but " + file + " is missing");
      }
      sections.add(section(file, id.asText()));
    }
    fields.done();
    return new Page(name, title, intro, glanceColumns, sections);
  }

  /** The section files of page {@code name} that its page file does not list. */
  static List<String> unlisted(Path figures, Page page) {
    Set<String> listed = new java.util.HashSet<>();
    page.sections().forEach(s -> listed.add(s.id()));
    try (Stream<Path> files = Files.list(figures.resolve(page.name()))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(f -> f.endsWith(".yaml"))
          .map(f -> f.substring(0, f.length() - ".yaml".length()))
          .filter(id -> !listed.contains(id))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode load(Path file) {
    try {
      return YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static Section section(Path file, String id) {
    JsonNode node = load(file);
    Fields fields = new Fields(file.toString(), node);
    String title = fields.text("title");
    int level = fields.node("level") == null ? 2 : fields.node("level").asInt();
    String shortTitle = fields.textOr("short", title);
    List<Glance> glance = new ArrayList<>();
    JsonNode glanceRows = fields.node("glance");
    if (glanceRows != null) {
      for (JsonNode row : glanceRows) {
        Fields g = new Fields(file + " glance", row);
        List<String> also = new ArrayList<>();
        JsonNode alsoNode = g.node("also");
        if (alsoNode != null) {
          alsoNode.forEach(a -> also.add(a.asText()));
        }
        glance.add(new Glance(g.text("figure"), g.text("comparison"), also));
        g.done();
      }
    }
    List<Block> body = new ArrayList<>();
    for (JsonNode block : fields.required("body")) {
      body.add(block(file.toString(), block));
    }
    fields.done();
    return new Section(id, title, level, shortTitle, glance, body);
  }

  private static Block block(String where, JsonNode node) {
    Fields fields = new Fields(where + " body", node);
    Block block;
    if (node.has("text")) {
      block = new Text(trim(fields.text("text")));
    } else if (node.has("commands")) {
      block = new Commands(trim(fields.text("commands")));
    } else if (node.has("compared")) {
      block = new Compared(trim(fields.text("compared")));
    } else if (node.has("measured")) {
      Fields m = new Fields(where + " measured", fields.required("measured"));
      block = new Measured(m.text("machine"), m.text("commit"), trim(m.textOr("note", "")));
      m.done();
    } else if (node.has("machines")) {
      List<Machine> machines = new ArrayList<>();
      for (JsonNode m : fields.required("machines")) {
        Fields mf = new Fields(where + " machine", m);
        List<String> names = new ArrayList<>();
        JsonNode name = mf.required("name");
        if (name.isArray()) {
          name.forEach(n -> names.add(n.asText()));
        } else {
          names.add(name.asText());
        }
        machines.add(new Machine(names, trim(mf.text("description"))));
        mf.done();
      }
      block = new Machines(machines);
    } else if (node.has("table")) {
      block = table(where, fields.required("table"));
    } else {
      throw new IllegalArgumentException(
          where + ": a block is text, commands, compared, measured or table: " + node);
    }
    fields.done();
    return block;
  }

  private static Table table(String where, JsonNode node) {
    Fields fields = new Fields(where + " table", node);
    List<Column> columns = new ArrayList<>();
    for (JsonNode c : fields.required("columns")) {
      Fields cf = new Fields(where + " column", c);
      String align = cf.textOr("align", "left");
      if (!align.equals("left") && !align.equals("right")) {
        throw new IllegalArgumentException(where + ": align is left or right, not " + align);
      }
      columns.add(
          new Column(
              cf.text("name"),
              align.equals("right"),
              cf.textOr("format", "{}"),
              cf.node("signed") != null && cf.node("signed").asBoolean(),
              cf.node("grouping") == null || cf.node("grouping").asBoolean(),
              cf.textOr("join", null)));
      cf.done();
    }
    List<List<JsonNode>> rows = new ArrayList<>();
    for (JsonNode row : fields.required("rows")) {
      if (!row.isArray() || row.size() != columns.size()) {
        throw new IllegalArgumentException(
            where + ": a row has one value per column (" + columns.size() + "): " + row);
      }
      List<JsonNode> cells = new ArrayList<>();
      row.forEach(cells::add);
      rows.add(cells);
    }
    fields.done();
    return new Table(columns, rows);
  }

  private static String trim(String text) {
    return text.strip();
  }

  // Rendering.

  /** The Markdown of {@code page}. */
  static String markdown(Page page, String notice) {
    StringBuilder out = new StringBuilder();
    out.append("# ").append(page.title()).append("\n\n");
    out.append("<!-- ").append(notice).append(" -->\n\n");
    for (Block block : page.intro()) {
      out.append(block(block)).append("\n\n");
    }
    if (!page.glanceColumns().isEmpty()) {
      out.append("## At a glance\n\n");
      out.append(glance(page)).append("\n\n");
    }
    for (Section section : page.sections()) {
      out.append("#".repeat(section.level())).append(' ').append(section.title()).append("\n\n");
      List<String> blocks = new ArrayList<>();
      for (Block block : section.body()) {
        blocks.add(block(block));
      }
      out.append(String.join("\n\n", blocks)).append("\n\n");
    }
    return out.toString().stripTrailing() + "\n";
  }

  private static String glance(Page page) {
    Map<String, Section> byId = new LinkedHashMap<>();
    page.sections().forEach(s -> byId.put(s.id(), s));
    List<String> lines = new ArrayList<>();
    lines.add(row(page.glanceColumns()));
    lines.add("|---".repeat(page.glanceColumns().size()) + "|");
    for (Section section : page.sections()) {
      for (Glance g : section.glance()) {
        List<String> where = new ArrayList<>();
        where.add(link(section));
        for (String id : g.also()) {
          Section other = byId.get(id);
          if (other == null) {
            throw new IllegalArgumentException(section.id() + ": glance names no section " + id);
          }
          where.add(link(other));
        }
        lines.add(row(List.of(g.figure(), g.comparison(), String.join(", ", where))));
      }
    }
    return String.join("\n", lines);
  }

  private static String link(Section section) {
    return "[" + section.shortTitle() + "](#" + section.anchor() + ")";
  }

  private static String block(Block block) {
    return switch (block) {
      case Text t -> t.markdown();
      case Commands c -> "```bash\n" + c.lines() + "\n```";
      case Compared c -> "Compared with: " + c.markdown();
      case Measured m -> measured(m);
      case Machines m -> machines(m);
      case Table t -> table(t);
    };
  }

  /** "Machine: M. Commit: C." and the note, on the same line when its first line fits. */
  private static String measured(Measured m) {
    String head = "Machine: " + m.machine() + ". Commit: " + m.commit() + ".";
    if (m.note().isEmpty()) {
      return head;
    }
    boolean fits = head.length() + 1 + m.note().lines().findFirst().orElse("").length() <= 110;
    return head + (fits ? " " : "\n") + m.note();
  }

  private static String machines(Machines machines) {
    List<String> items = new ArrayList<>();
    for (Machine m : machines.machines()) {
      List<String> names = m.names().stream().map(n -> "**" + n + "**").toList();
      items.add("- " + String.join(", ", names) + ": " + m.description().replace("\n", "\n  "));
    }
    return String.join("\n", items);
  }

  private static String table(Table table) {
    List<String> lines = new ArrayList<>();
    lines.add(row(table.columns().stream().map(Column::name).toList()));
    lines.add(
        table.columns().stream()
            .map(c -> c.right() ? "---:" : "---")
            .collect(java.util.stream.Collectors.joining("|", "|", "|")));
    for (List<JsonNode> row : table.rows()) {
      List<String> cells = new ArrayList<>();
      for (int i = 0; i < row.size(); i++) {
        cells.add(cell(table.columns().get(i), row.get(i)));
      }
      lines.add(row(cells));
    }
    return String.join("\n", lines);
  }

  private static String row(List<String> cells) {
    return "| " + String.join(" | ", cells) + " |";
  }

  /** One cell: a value, or a list of values filling the column's template. */
  static String cell(Column column, JsonNode value) {
    if (value.isArray() && column.join() != null) {
      List<String> parts = new ArrayList<>();
      for (JsonNode part : value) {
        List<JsonNode> values = new ArrayList<>();
        part.forEach(values::add);
        parts.add(fill(column, column.format(), values));
      }
      return String.join(column.join(), parts);
    }
    if (value.isArray()) {
      List<JsonNode> values = new ArrayList<>();
      value.forEach(values::add);
      return fill(column, column.format(), values);
    }
    if (value.isNumber() || (value.isObject() && value.has("b"))) {
      return fill(column, column.format(), List.of(value));
    }
    return value(column, value);
  }

  /** One value: a number, text, null ("—"), {b: value} (bold) or {text, values} (a template). */
  private static String value(Column column, JsonNode value) {
    if (value == null || value.isNull()) {
      return "—";
    }
    if (value.isNumber()) {
      return number(value.decimalValue(), column.signed(), column.grouping());
    }
    if (value.isTextual()) {
      return value.asText();
    }
    if (value.isObject() && value.has("b") && value.size() == 1) {
      return "**" + value(column, value.get("b")) + "**";
    }
    if (value.isObject() && value.has("text") && value.has("values") && value.size() == 2) {
      String template = value.get("text").asText();
      JsonNode values = value.get("values");
      if (values.isObject()) {
        return named(column, template, values);
      }
      List<JsonNode> list = new ArrayList<>();
      values.forEach(list::add);
      return fill(column, template, list);
    }
    throw new IllegalArgumentException(
        "a value is a number, text, null, {b: …} or {text, values}: " + value);
  }

  private static String fill(Column column, String template, List<JsonNode> values) {
    String[] parts = template.split("\\{}", -1);
    if (parts.length - 1 != values.size()) {
      throw new IllegalArgumentException(
          "template \"" + template + "\" takes " + (parts.length - 1) + " values, not " + values);
    }
    StringBuilder out = new StringBuilder(parts[0]);
    for (int i = 0; i < values.size(); i++) {
      out.append(value(column, values.get(i))).append(parts[i + 1]);
    }
    return out.toString();
  }

  private static String named(Column column, String template, JsonNode values) {
    Matcher m = NAMED.matcher(template);
    StringBuilder out = new StringBuilder();
    Set<String> used = new java.util.HashSet<>();
    while (m.find()) {
      JsonNode v = values.get(m.group(1));
      if (v == null) {
        throw new IllegalArgumentException(
            "\"" + template + "\" names ${" + m.group(1) + "}, which values lack");
      }
      used.add(m.group(1));
      String text =
          v.isNumber()
              ? number(v.decimalValue(), m.group(2) != null, column.grouping())
              : value(column, v);
      m.appendReplacement(out, Matcher.quoteReplacement(text));
    }
    m.appendTail(out);
    for (Map.Entry<String, JsonNode> value : values.properties()) {
      String name = value.getKey();
      if (!used.contains(name)) {
        throw new IllegalArgumentException("\"" + template + "\" does not use the value " + name);
      }
    }
    return out.toString();
  }

  /**
   * A number as the documents write it: the digits it is given with, a minus sign (U+2212) when
   * negative, a plus sign when positive and {@code signed}, thousands grouped by commas.
   */
  static String number(BigDecimal value, boolean signed, boolean grouping) {
    String sign = value.signum() < 0 ? MINUS : signed && value.signum() > 0 ? "+" : "";
    String plain = value.abs().toPlainString();
    int dot = plain.indexOf('.');
    String whole = dot < 0 ? plain : plain.substring(0, dot);
    String fraction = dot < 0 ? "" : plain.substring(dot);
    if (grouping && whole.length() > 3) {
      StringBuilder grouped = new StringBuilder();
      int first = whole.length() % 3 == 0 ? 3 : whole.length() % 3;
      grouped.append(whole, 0, first);
      for (int i = first; i < whole.length(); i += 3) {
        grouped.append(',').append(whole, i, i + 3);
      }
      whole = grouped.toString();
    }
    return sign + whole + fraction;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String anchorOf(String title) {
    return title.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
  }

  /** The fields of one YAML object, each read at most once; {@link #done} rejects the others. */
  private static final class Fields {
    private final String where;
    private final JsonNode node;
    private final Set<String> read = new java.util.HashSet<>();

    Fields(String where, JsonNode node) {
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(where + ": expected a map, not " + node);
      }
      this.where = where;
      this.node = node;
    }

    JsonNode node(String name) {
      read.add(name);
      JsonNode value = node.get(name);
      return value == null || value.isNull() ? null : value;
    }

    JsonNode required(String name) {
      JsonNode value = node(name);
      if (value == null) {
        throw new IllegalArgumentException(where + ": " + name + " is missing");
      }
      return value;
    }

    String text(String name) {
      JsonNode value = required(name);
      if (!value.isValueNode()) {
        throw new IllegalArgumentException(where + ": " + name + " is text, not " + value);
      }
      return value.asText();
    }

    String textOr(String name, String otherwise) {
      return node(name) == null ? otherwise : text(name);
    }

    void done() {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        String name = field.getKey();
        if (!read.contains(name)) {
          throw new IllegalArgumentException(where + ": unknown field " + name);
        }
      }
    }
  }
}
