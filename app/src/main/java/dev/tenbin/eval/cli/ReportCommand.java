package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.aggregate.Aggregate;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.aggregate.OfficialRanking;
import dev.tenbin.eval.aggregate.Scope;
import dev.tenbin.eval.job.MeasureSpecs;
import dev.tenbin.eval.job.Price;
import dev.tenbin.eval.leaderboard.HtmlReport;
import dev.tenbin.eval.leaderboard.Leaderboards;
import dev.tenbin.eval.leaderboard.ReportFormat;
import dev.tenbin.eval.nano.NanoFidelityRecord;
import dev.tenbin.eval.parity.ParityRecord;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.report.JobMeasures;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.scoring.stats.MultipleTesting;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tenbin report}: the leaderboard of one or more finished jobs, as a terminal table,
 * Markdown, a self-contained HTML page or JSON.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = {
      "Rank the systems of finished jobs: micro and macro averages (macro hierarchical over the"
          + " languages of a dataset), competition ranks of the rows that have every task in scope,"
          + " delta vs each system's base variant, Borda counts, bootstrap intervals (over tasks from"
          + " 5 tasks, over queries below), swap probabilities, rank intervals and the rows tied for"
          + " first, Bradley–Terry strengths from per-query wins, paired tests of every pair of"
          + " ranked rows on each task (randomization and t-test, corrected; groups; minimum"
          + " detectable effect), and agreement with an official ranking.",
      "Rows missing a task of the scope are listed unranked with their coverage."
    })
public final class ReportCommand implements Callable<Integer> {
  @Parameters(
      arity = "1..*",
      paramLabel = "DIR",
      description = "Job output folders (holding cells/).")
  List<Path> jobs;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = "table, markdown, html or json (default ${DEFAULT-VALUE}).")
  String format;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description =
          "Write the report to FILE instead of stdout (Markdown also writes its two chart SVGs beside it).")
  Path out;

  @Option(
      names = "--metric",
      defaultValue = LeaderboardOptions.DEFAULT_METRIC,
      paramLabel = "METRIC",
      description = "The metric a cell scores by, × 100 (default ${DEFAULT-VALUE}).")
  String metric;

  @Option(
      names = "--aggregate",
      defaultValue = "macro",
      paramLabel = "KIND",
      description =
          "Rank by macro (every benchmark equal) or micro (every task equal); default ${DEFAULT-VALUE}.")
  String aggregate;

  @Option(names = "--benchmark", paramLabel = "BENCHMARK", description = "Only this benchmark.")
  String benchmark;

  @Option(
      names = "--language",
      paramLabel = "LANGUAGE",
      description = "Only tasks in this language.")
  String language;

  @Option(names = "--domain", paramLabel = "DOMAIN", description = "Only tasks of this domain.")
  String domain;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      description = "Only cells of this mode: retrieval, rerank or rerank_without_safeguard.")
  String mode;

  @Option(
      names = "--official",
      paramLabel = "FILE|DIR",
      description =
          "A published ranking to correlate with: a CSV file with header model,score or"
              + " model,rank, or a folder of MTEB result files (<model>/<revision>/<Task>.json;"
              + " a model's score is its mean main_score over the tasks all models have).")
  Path official;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Bootstrap seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--bootstrap",
      defaultValue = "2000",
      paramLabel = "N",
      description =
          "Bootstrap draws (over tasks from 5 tasks, over queries below) of the intervals, swap"
              + " probabilities, rank intervals and Bradley–Terry intervals; 0 to skip (default"
              + " ${DEFAULT-VALUE}).")
  int draws;

  @Option(
      names = "--permutations",
      defaultValue = "10000",
      paramLabel = "N",
      description =
          "Randomization draws of the paired tests (exact enumeration up to 20 queries); 0 to"
              + " skip the paired tests (default ${DEFAULT-VALUE}).")
  int permutations;

  @Option(
      names = "--correction",
      defaultValue = "holm",
      paramLabel = "KIND",
      description =
          "How the paired tests' p-values are corrected across the pairs compared: holm"
              + " (Holm–Bonferroni, family-wise), bh (Benjamini–Hochberg, false discovery rate) or"
              + " none (default ${DEFAULT-VALUE}).")
  String correction;

  @Option(
      names = "--price",
      paramLabel = "PRICES",
      description =
          "cpu_hour=P,gpu_hour=P: add the cost of 1,000 queries and of indexing 1,000,000 documents, from the measured"
              + " latency and indexing time, at these prices of a machine hour (a cell that encoded"
              + " on CUDA is priced by the GPU hour).")
  String price;

  @Option(
      names = {"-m", "--measure"},
      paramLabel = "MEASURE",
      description =
          "trec_eval measures to add, as tenbin metrics -m takes them (-m P.5,10,100 -m"
              + " ndcg_cut.5,20 -m recip_rank), measured on the stored rankings against the"
              + " judgments each job keeps; default: the measures of the first job's spec.")
  List<String> measures = new ArrayList<>();

  @Option(
      names = "--view",
      defaultValue = "leaderboard",
      paramLabel = "VIEW",
      description =
          "leaderboard (default) or positions: the stored PosIR position analyses of the cells in"
              + " scope, per task ordered by the PSI of their largest length bucket (table, markdown"
              + " or json).")
  String view;

  @Option(
      names = "--positions-reference",
      paramLabel = "SYSTEM",
      description =
          "With --view positions: the system (bm25, dense:MODEL) whose bin profile the others are"
              + " correlated with, per task (its base variant over the whole corpus). Default: the"
              + " positions.reference of the first job's job.yaml, else bm25.")
  String positionsReference;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The price the first job folder's spec names, for a report without --price; else null. */
  /** The flag's measures, or those of the first job whose spec names some. */
  private List<String> chosenMeasures() {
    return !measures.isEmpty()
        ? measures
        : jobs.stream()
            .map(JobMeasures::ofJobFolder)
            .filter(m -> !m.isEmpty())
            .findFirst()
            .orElse(List.of());
  }

  private Price jobPrice() {
    return jobs.stream().map(Price::ofJobFolder).filter(p -> p != null).findFirst().orElse(null);
  }

  @Override
  public Integer call() {
    if (!view.equals("leaderboard") && !view.equals("positions")) {
      throw new InvalidInputException(
          "--view", "--view must be leaderboard or positions, got '" + view + "'");
    }
    ReportFormat reportFormat = parseFormat();
    Aggregate kind = parseAggregate();
    if (draws < 0) {
      throw new InvalidInputException("--bootstrap", "--bootstrap must be 0 or more, got " + draws);
    }
    if (permutations < 0) {
      throw new InvalidInputException(
          "--permutations", "--permutations must be 0 or more, got " + permutations);
    }
    MultipleTesting.Correction pCorrection;
    try {
      pCorrection = MultipleTesting.Correction.parse(correction);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("--correction", "--correction: " + e.getMessage());
    }
    if (mode != null) {
      try {
        RankingMode.ofWireName(mode);
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("--mode", "--mode: " + e.getMessage());
      }
    }
    if (!measures.isEmpty()) {
      try {
        MeasureSpecs.metrics("--measure", measures);
      } catch (InvalidInputException e) {
        throw new InvalidInputException("--measure", "--measure: " + e.getMessage());
      }
    }
    List<CellRecord> cells = new ArrayList<>();
    java.util.Map<Path, List<CellRecord>> cellsByJob = new java.util.LinkedHashMap<>();
    for (Path job : jobs) {
      List<CellRecord> held =
          ResultStore.existing(job, "JOB_DIR").readAll(ResultStore.Rankings.LEFT_IN_FILE);
      cells.addAll(held);
      cellsByJob.merge(job, held, (a, b) -> a);
    }
    if (cells.isEmpty()) {
      throw new InvalidInputException(
          "JOB_DIR", "JOB_DIR " + jobs + " holds no finished cells yet");
    }
    Scope scope = new Scope(benchmark, language, domain, mode);
    checkScope(cells, scope);
    if (view.equals("positions")) {
      return positions(cells.stream().filter(c -> scope.includes(c.key())).toList(), reportFormat);
    }
    checkMetric(cells);
    LeaderboardOptions options =
        LeaderboardOptions.defaults()
            .withMetric(metric)
            .withAggregate(kind)
            .withScope(scope)
            .withBootstrapDraws(draws)
            .withSeed(seed)
            .withPermutations(permutations)
            .withCorrection(pCorrection)
            .withPrice(price != null ? Price.parse("--price", price) : jobPrice())
            .withParity(jobs.stream().flatMap(j -> ParityRecord.readAll(j).stream()).toList())
            .withMeasures(JobMeasures.measure(chosenMeasures(), cellsByJob))
            .withNanoFidelity(
                jobs.stream().flatMap(j -> NanoFidelityRecord.readAll(j).stream()).toList())
            .withOfficial(official == null ? null : readOfficial());
    Leaderboard board = Leaderboard.of(cells, options);
    List<PositionsView.Row> positionRows =
        reportFormat == ReportFormat.HTML
            ? PositionsView.rows(
                cells.stream().filter(c -> scope.includes(c.key())).toList(), positionsReference())
            : List.of();
    if (out == null) {
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.print(
          reportFormat == ReportFormat.HTML
              ? HtmlReport.render(board, positionRows)
              : reportFormat.render(board));
      stdout.flush();
    } else {
      Leaderboards.write(board, reportFormat, out, positionRows);
      spec.commandLine()
          .getErr()
          .printf(
              "tenbin: %s leaderboard of %d row%s -> %s%n",
              reportFormat.name().toLowerCase(java.util.Locale.ROOT),
              board.rows().size(),
              board.rows().size() == 1 ? "" : "s",
              out);
    }
    return 0;
  }

  /** The flag, or the first job's {@code positions.reference}, or bm25. */
  private String positionsReference() {
    return positionsReference != null
        ? positionsReference
        : PositionSettings.ofJobFolder(jobs.getFirst()).reference();
  }

  private int positions(List<CellRecord> cells, ReportFormat reportFormat) {
    List<PositionsView.Row> rows = PositionsView.rows(cells, positionsReference());
    if (rows.isEmpty()) {
      throw new InvalidInputException(
          "--view", "no cell in scope has a position analysis (its task needs qrels/spans.tsv)");
    }
    String text =
        switch (reportFormat) {
          case TABLE -> PositionsView.table(rows);
          case MARKDOWN -> PositionsView.markdown(rows);
          case JSON -> PositionsView.json(rows);
          case HTML ->
              throw new InvalidInputException(
                  "--format", "--view positions is table, markdown or json");
        };
    if (out == null) {
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.print(text);
      stdout.flush();
    } else {
      try {
        Files.writeString(out, text);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot write " + out, e);
      }
    }
    int without = cells.size() - rows.size();
    if (without > 0) {
      spec.commandLine()
          .getErr()
          .printf(
              "tenbin: %d %s in scope no position analysis (no spans)%n",
              without, without == 1 ? "cell has" : "cells have");
    }
    return 0;
  }

  private ReportFormat parseFormat() {
    try {
      return ReportFormat.parse(format);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          "--format", "--format must be table, markdown, html or json, got '" + format + "'");
    }
  }

  private Aggregate parseAggregate() {
    try {
      return Aggregate.parse(aggregate);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(
          "--aggregate", "--aggregate must be macro or micro, got '" + aggregate + "'");
    }
  }

  private OfficialRanking readOfficial() {
    if (Files.isDirectory(official)) {
      return dev.tenbin.eval.aggregate.MtebResults.read(official, "--official");
    }
    if (!Files.isRegularFile(official)) {
      throw new InvalidInputException(
          "--official", "--official " + official + " is not a file or a folder");
    }
    return OfficialRanking.read(official, "--official");
  }

  private void checkMetric(List<CellRecord> cells) {
    TreeSet<String> known = new TreeSet<>();
    cells.forEach(c -> known.addAll(c.metrics() == null ? List.of() : c.metrics().keySet()));
    if (!known.contains(metric)) {
      throw new InvalidInputException(
          "--metric", "--metric " + metric + " is not in the stored cells; known: " + known);
    }
  }

  private static void checkScope(List<CellRecord> cells, Scope scope) {
    if (cells.stream().noneMatch(c -> scope.includes(c.key()))) {
      String field =
          scope.benchmark() != null
              ? "--benchmark"
              : scope.language() != null
                  ? "--language"
                  : scope.domain() != null ? "--domain" : "--mode";
      throw new InvalidInputException(field, "no stored cell matches " + scope.describe());
    }
  }
}
