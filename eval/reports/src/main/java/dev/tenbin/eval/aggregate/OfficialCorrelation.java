package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.export.MtebExport;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.scoring.stats.Correlation;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * How well our aggregate agrees with a published ranking: Spearman's rho and Pearson's r over the
 * models both rank, each with a percentile bootstrap 95% interval over models (pairs resampled with
 * replacement; draws where a side is constant are left out).
 *
 * @param official the published ranking
 * @param matches the models both rank, in the official file's order
 * @param unmatched official models without a ranked row of ours
 * @param spearman rho; NaN with fewer than two matches
 * @param spearmanInterval 95% interval, null with fewer than three matches
 * @param pearson r between our aggregate and the official score (or negated rank)
 * @param pearsonInterval 95% interval, null with fewer than three matches
 */
public record OfficialCorrelation(
    OfficialRanking official,
    List<Match> matches,
    List<String> unmatched,
    double spearman,
    Interval spearmanInterval,
    double pearson,
    Interval pearsonInterval) {

  /**
   * One model ranked by both.
   *
   * @param model the official model name
   * @param row our row it was matched with
   * @param ours our aggregate score
   * @param theirs the official value as written (score or rank)
   */
  public record Match(String model, RowKey row, double ours, double theirs) {}

  /**
   * Matches each official model with our ranked rows whose system or model id equals its name
   * (ignoring case; a system's ':' may read '-', as {@code export mteb} writes it), preferring the
   * base variant, then retrieval (not a reranking mode), then the best score; then correlates. A
   * name with mteb's experiment suffix, {@code NAME (mode=rerank, variant=int8)} as {@link
   * MtebResults} reads an experiment back, matches only the rows of that variant and mode (a
   * keyword left out: base, retrieval).
   *
   * @param ranked our ranked rows and their aggregate scores
   */
  public static OfficialCorrelation compute(
      OfficialRanking official, List<Scored> ranked, int resamples, long seed) {
    List<Match> matches = new ArrayList<>();
    List<String> unmatched = new ArrayList<>();
    for (String model : official.values().keySet()) {
      java.util.regex.Matcher experiment = EXPERIMENT.matcher(model);
      String name = experiment.matches() ? experiment.group(1) : model;
      Map<String, String> kwargs = experiment.matches() ? kwargs(experiment.group(2)) : Map.of();
      Optional<Scored> best =
          ranked.stream()
              .filter(
                  s ->
                      s.row().system().name().equalsIgnoreCase(name)
                          || s.row().system().name().replace(':', '-').equalsIgnoreCase(name)
                          || s.row().system().model().equalsIgnoreCase(name))
              .filter(
                  s ->
                      kwargs.isEmpty()
                          || (s.row()
                                  .variant()
                                  .equals(
                                      kwargs.getOrDefault(MtebExport.VARIANT_KEYWORD, RowKey.BASE))
                              && s.row()
                                  .mode()
                                  .equals(
                                      kwargs.getOrDefault(
                                          MtebExport.MODE_KEYWORD,
                                          RankingMode.RETRIEVAL.wireName()))))
              .max(
                  Comparator.comparing((Scored s) -> s.row().isBase())
                      .thenComparing(s -> s.row().mode().equals(RankingMode.RETRIEVAL.wireName()))
                      .thenComparingDouble(Scored::score));
      if (best.isPresent()) {
        matches.add(
            new Match(model, best.get().row(), best.get().score(), official.values().get(model)));
      } else {
        unmatched.add(model);
      }
    }
    double[] ours = matches.stream().mapToDouble(Match::ours).toArray();
    double[] theirs = matches.stream().mapToDouble(m -> official.goodness(m.model())).toArray();
    Interval spearmanInterval = null;
    Interval pearsonInterval = null;
    if (matches.size() >= 3) {
      double[][] draws = bootstrap(ours, theirs, resamples, seed);
      spearmanInterval = Interval.percentile(draws[0], 0.95);
      pearsonInterval = Interval.percentile(draws[1], 0.95);
    }
    return new OfficialCorrelation(
        official,
        List.copyOf(matches),
        List.copyOf(unmatched),
        Correlation.spearman(ours, theirs),
        spearmanInterval,
        Correlation.pearson(ours, theirs),
        pearsonInterval);
  }

  /** "NAME (key=value, key=value)": a model's name with mteb's experiment suffix. */
  private static final java.util.regex.Pattern EXPERIMENT =
      java.util.regex.Pattern.compile("(.+) \\(([^()=]+=[^()]*)\\)");

  /** "mode=rerank, variant=int8" as keywords. */
  private static Map<String, String> kwargs(String label) {
    Map<String, String> kwargs = new java.util.TreeMap<>();
    for (String part : label.split(", ")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        kwargs.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return kwargs;
  }

  /** A ranked row and its aggregate score. */
  public record Scored(RowKey row, double score) {}

  private static double[][] bootstrap(double[] ours, double[] theirs, int resamples, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int n = ours.length;
    double[] spearman = new double[resamples];
    double[] pearson = new double[resamples];
    double[] x = new double[n];
    double[] y = new double[n];
    for (int draw = 0; draw < resamples; draw++) {
      for (int i = 0; i < n; i++) {
        int pick = random.nextInt(n);
        x[i] = ours[pick];
        y[i] = theirs[pick];
      }
      spearman[draw] = Correlation.spearman(x, y);
      pearson[draw] = Correlation.pearson(x, y);
    }
    return new double[][] {spearman, pearson};
  }
}
