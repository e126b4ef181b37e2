package dev.tenbin.figures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenbin.figures.FigurePage.Page;
import dev.tenbin.figures.FigurePage.Section;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * BENCHMARKS.md and RELIABILITY.md are what the figures in {@code figures/} generate, so a figure
 * is edited in its data file and the page regenerated, never the page by hand. With {@code
 * -Dtenbin.figures.write=true} the test writes the pages instead of comparing them
 * (docs/developing.md, "Figures").
 */
class FigureDocsTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Path FIGURES = ROOT.resolve("figures");

  static final String REGENERATE =
      "./mvnw -q -pl tooling/figures -am test -Dtenbin.figures.write=true";

  private static final Pattern NUMBER =
      Pattern.compile("(?<![\\w.,])(\\d{1,3}(?:,\\d{3})+|\\d+)(\\.\\d+)?(?![\\w.]|,\\d)");
  private static final Pattern ANCHOR_LINK = Pattern.compile("\\]\\(#([^)]+)\\)");

  private static String notice(String page) {
    return "Generated from figures/"
        + page
        + ".yaml and figures/"
        + page
        + "/*.yaml: edit those, then "
        + REGENERATE
        + " (docs/developing.md, \"Figures\").";
  }

  static String generate(Page page) {
    return FigurePage.markdown(page, notice(page.name()));
  }

  @Test
  void benchmarksMdIsWhatItsFiguresGenerate() throws IOException {
    check("benchmarks", "BENCHMARKS.md");
  }

  @Test
  void reliabilityMdIsWhatItsFiguresGenerate() throws IOException {
    check("reliability", "RELIABILITY.md");
  }

  private static void check(String name, String file) throws IOException {
    String generated = generate(FigurePage.read(FIGURES, name));
    Path document = ROOT.resolve(file);
    if (Boolean.getBoolean("tenbin.figures.write")) {
      Files.writeString(document, generated, StandardCharsets.UTF_8);
      return;
    }
    String committed = Files.readString(document, StandardCharsets.UTF_8);
    String difference = firstDifference(file, committed, generated);
    if (difference != null) {
      fail(
          difference
              + "\n"
              + file
              + " is generated from figures/"
              + name
              + ".yaml and figures/"
              + name
              + "/*.yaml: change the figures there (figures/README.md), then regenerate with\n  "
              + REGENERATE);
    }
  }

  /** Where {@code committed} first differs from {@code generated}, or null when they are equal. */
  static String firstDifference(String file, String committed, String generated) {
    if (committed.equals(generated)) {
      return null;
    }
    String[] a = committed.split("\n", -1);
    String[] b = generated.split("\n", -1);
    int line = 0;
    while (line < a.length && line < b.length && a[line].equals(b[line])) {
      line++;
    }
    String committedLine = line < a.length ? a[line] : "(end of file)";
    String generatedLine = line < b.length ? b[line] : "(end of file)";
    int column = 0;
    while (column < committedLine.length()
        && column < generatedLine.length()
        && committedLine.charAt(column) == generatedLine.charAt(column)) {
      column++;
    }
    return file
        + " differs from what its figures generate, first at line "
        + (line + 1)
        + ", column "
        + (column + 1)
        + ":\n  committed: "
        + excerpt(committedLine, column)
        + "\n  generated: "
        + excerpt(generatedLine, column);
  }

  /** A long line cut to the 100 characters around {@code column}. */
  private static String excerpt(String line, int column) {
    if (line.length() <= 120) {
      return line;
    }
    int from = Math.max(0, column - 50);
    int to = Math.min(line.length(), from + 100);
    return (from > 0 ? "…" : "") + line.substring(from, to) + (to < line.length() ? "…" : "");
  }

  @Test
  void aFigureEditedInThePageIsCaughtWithItsLine() {
    String generated = "# T\n\n| a | b |\n|---|---:|\n| x | 0.7320 |\n";
    String edited = generated.replace("0.7320", "0.7321");
    assertThat(firstDifference("P.md", generated, generated)).isNull();
    assertThat(firstDifference("P.md", edited, generated))
        .contains("first at line 5, column 12")
        .contains("committed: | x | 0.7321 |")
        .contains("generated: | x | 0.7320 |");
  }

  @Test
  void everySectionFileIsOnItsPage() {
    for (String name : List.of("benchmarks", "reliability")) {
      assertThat(FigurePage.unlisted(FIGURES, FigurePage.read(FIGURES, name)))
          .as("section files that figures/%s.yaml does not list", name)
          .isEmpty();
    }
  }

  @Test
  void everyLinkToAHeadingOfThePageFindsIt() {
    for (String name : List.of("benchmarks", "reliability")) {
      String markdown = generate(FigurePage.read(FIGURES, name));
      Set<String> anchors = new HashSet<>();
      for (String line : markdown.lines().toList()) {
        if (line.matches("#{1,6} .*")) {
          anchors.add(FigurePage.anchorOf(line.replaceFirst("#+ ", "")));
        }
      }
      List<String> broken = new ArrayList<>();
      Matcher link = ANCHOR_LINK.matcher(markdown);
      while (link.find()) {
        if (!anchors.contains(link.group(1))) {
          broken.add(link.group(1));
        }
      }
      assertThat(broken).as("links of %s to headings it lacks", name).isEmpty();
    }
  }

  /**
   * A headline of "At a glance" repeats figures of its sections: each number it gives (but small
   * counts) is a number of those sections, at the precision the headline writes it.
   */
  @Test
  void everyFigureOfAHeadlineIsOneOfItsSections() {
    Page page = FigurePage.read(FIGURES, "benchmarks");
    List<String> missing = new ArrayList<>();
    for (Section section : page.sections()) {
      for (FigurePage.Glance glance : section.glance()) {
        List<Section> sources = new ArrayList<>(List.of(section));
        for (String id : glance.also()) {
          page.sections().stream().filter(s -> s.id().equals(id)).forEach(sources::add);
        }
        List<BigDecimal> known = new ArrayList<>();
        for (Section source : sources) {
          Page one = new Page(page.name(), "", List.of(), List.of(), List.of(source));
          known.addAll(numbers(FigurePage.markdown(one, "")));
        }
        for (BigDecimal figure : numbers(glance.figure())) {
          if (figure.scale() == 0 && figure.compareTo(BigDecimal.TEN) < 0) {
            continue;
          }
          boolean found =
              known.stream()
                  .anyMatch(
                      k ->
                          k.scale() >= figure.scale()
                              && k.setScale(figure.scale(), RoundingMode.HALF_UP).compareTo(figure)
                                  == 0);
          if (!found) {
            missing.add(
                section.id() + ": " + figure.toPlainString() + " in \"" + glance.figure() + "\"");
          }
        }
      }
    }
    assertThat(missing).as("headline figures that their sections do not give").isEmpty();
  }

  private static List<BigDecimal> numbers(String text) {
    List<BigDecimal> out = new ArrayList<>();
    Matcher m = NUMBER.matcher(text);
    while (m.find()) {
      out.add(new BigDecimal(m.group(1).replace(",", "") + (m.group(2) == null ? "" : m.group(2))));
    }
    return out;
  }
}
