package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.job.EvalJob;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.plan.RetrieverSpec;
import dev.tenbin.eval.positions.DocumentLengths;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionAnalyzer;
import dev.tenbin.eval.positions.PositionReferences;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.report.EvalReport;
import dev.tenbin.eval.report.ReportWriter;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.retrieval.Bm25Settings;
import dev.tenbin.eval.retrieval.DenseSimilarities;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.retrieval.LatencyProbe;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.taskset.CrossLingualFolder;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin eval}: index a BEIR-format folder, retrieve the top-100 per query through the
 * services, and report trec_eval-exact metrics. It runs as a one-task job ({@link EvalJob}): the
 * same families, fingerprints, embedding cache and runner as {@code tenbin run}.
 */
@Command(
    name = "eval",
    abbreviateSynopsis = true,
    mixinStandardHelpOptions = true,
    resourceBundle = "dev.tenbin.eval.cli.FamilyHelp",
    description =
        "Evaluate retrievers on a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/test.tsv"
            + " or --split's).")
public final class EvalCommand implements Callable<Integer> {
  @Option(
      names = "--dataset",
      required = true,
      paramLabel = "DIR",
      description = "BEIR-format folder.")
  Path dataset;

  @Option(
      names = "--split",
      defaultValue = BeirDatasetReader.DEFAULT_SPLIT,
      paramLabel = "NAME",
      description =
          "The qrels to evaluate against: qrels/NAME.tsv of --dataset (dev, test, train, ...;"
              + " default ${DEFAULT-VALUE}). Another split than test is a dataset of its own"
              + " (fingerprint); answer spans belong to test.")
  String split;

  @Option(
      names = "--bm25-k1",
      paramLabel = "K1",
      description =
          "BM25 saturation k1 of the bm25 retriever (default 0.9). Other values than 0.9 / 0.4"
              + " report the system as bm25:k1=K1,b=B. Candidate sets keep the defaults.")
  Float bm25K1;

  @Option(
      names = "--bm25-b",
      paramLabel = "B",
      description = "BM25 length normalisation b of the bm25 retriever, 0..1 (default 0.4).")
  Float bm25B;

  @Option(
      names = "--retriever",
      defaultValue = "bm25",
      split = ",",
      paramLabel = "NAME",
      descriptionKey = "retriever")
  List<String> retrievers = new ArrayList<>();

  @Option(
      names = "--language",
      paramLabel = "CODE",
      description =
          "ISO 639-1 language of the collection, selecting the BM25 analyzer (en, de, ar, zh,"
              + " ja, ...). Default: detected from the corpus.")
  String language;

  @Option(names = "--json", description = "Print exactly one JSON object on stdout.")
  boolean json;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Write results.json, TREC run files and per-query metrics here.")
  Path out;

  @Option(
      names = "--variant",
      paramLabel = "NAME",
      description =
          "Dense efficiency variant, repeatable: base, int8, binary, int8_rescore, binary_rescore,"
              + " hnsw, or [truncateN_][hnsw_][int8|binary][_rescore] (hnsw_int8,"
              + " truncate256_hnsw_binary_rescore, ...). Default for dense retrievers: base, int8,"
              + " binary, int8_rescore and binary_rescore. For hybrid retrievers the fusion:"
              + " rrf_kK (RRF, Σ w_i/(k+rank_i); default rrf_k60) or minmax (per-query min-max"
              + " normalised scores, Σ w_i·norm_i), either with _wW: the first component weighs W,"
              + " the others share 1-W (default: equal weights). Each component's top --top-k is"
              + " fused; ties: fused score descending, then doc id.")
  List<String> variants = new ArrayList<>();

  @Option(names = "--rerank", paramLabel = "MODEL", descriptionKey = "rerank")
  List<String> rerankers = new ArrayList<>();

  @Option(
      names = "--candidates",
      defaultValue = "hybrid",
      description = "Candidate set for --rerank: hybrid or bm25 (default ${DEFAULT-VALUE}).")
  String candidates;

  @Option(
      names = "--candidates-dir",
      paramLabel = "DIR",
      description =
          "Where `tenbin candidates build` wrote the sets (default: as candidates build chooses).")
  Path candidatesDir;

  @CommandLine.Option(
      names = "--similarity",
      defaultValue = "cosine",
      description =
          "Dense similarity: cosine, dot, or best (both from one encode; per task the better by"
              + " nDCG@10, as the HAKARI protocol reports it). Default ${DEFAULT-VALUE}.")
  String similarity;

  @Option(
      names = "--top-k",
      defaultValue = "100",
      description = "Depth of each ranking (default ${DEFAULT-VALUE}).")
  int topK;

  @Option(
      names = "--latency-concurrency",
      paramLabel = "N",
      defaultValue = "" + LatencyProbe.CONCURRENCY,
      description =
          "Queries in flight when each run's latency is measured concurrently, after the one at a"
              + " time probe: the first 100 queries, encode plus search each (default"
              + " ${DEFAULT-VALUE}). Not part of the cells' fingerprints.")
  int latencyConcurrency;

  @Option(
      names = "--shards",
      defaultValue = "1",
      paramLabel = "K",
      description =
          "Split each collection into K shards (documents by a stable hash of their id), searched"
              + " as one: BM25 with the whole collection's statistics, exact searches merged, so the"
              + " rankings are those of one collection (default: ${DEFAULT-VALUE}).")
  int shards;

  @Option(
      names = "--replicas",
      defaultValue = "1",
      paramLabel = "R",
      description =
          "Keep each shard as R copies on distinct index pods (--index-pods; with fewer pods than"
              + " R, copies share pods): every copy is written, each search asks one live copy, and"
              + " a copy whose pod is lost is left out while its shard keeps another, so the run"
              + " goes on (default: ${DEFAULT-VALUE}). The rankings are the same.")
  int replicas;

  @Option(
      names = "--queries",
      paramLabel = "DIR",
      description =
          "Cross-lingual: the queries of this BEIR folder (or queries.jsonl) against --dataset's"
              + " corpus, qrels and spans (parallel collections, same query ids), e.g. xquad-de"
              + " questions against xquad-en-long. BM25 analyses both with the corpus language.")
  Path queries;

  @Option(
      names = "--positions",
      description =
          "PosIR position analysis of every run (the dataset needs qrels/spans.tsv): nDCG@10 and"
              + " recall@100 by document-length bucket x 20 relative-position bins of the answer"
              + " span, with PSI, slope and correlations per bucket.")
  boolean positions;

  @Option(
      names = "--length-tokenizer",
      defaultValue = LengthTokenizer.DEFAULT,
      paramLabel = "MODEL|PATH",
      description =
          "With --positions: the one tokenizer that counts document lengths for every system, a"
              + " built-in model id or a tokenizer.json path (default ${DEFAULT-VALUE}).")
  String lengthTokenizer;

  @Option(
      names = "--min-count",
      defaultValue = "5",
      paramLabel = "N",
      description =
          "With --positions: bins with fewer queries are left out of PSI, slope and correlations"
              + " (default ${DEFAULT-VALUE}).")
  int minCount;

  @Option(
      names = "--length-reference",
      paramLabel = "DIR",
      description =
          "With --positions: take document lengths from this BEIR folder's documents (same ids),"
              + " e.g. the source language of a translation, so a query falls in the same bucket in"
              + " every language.")
  Path lengthReference;

  @Option(
      names = "--positions-reference",
      defaultValue = "bm25",
      paramLabel = "RETRIEVER",
      description =
          "With --positions: the run whose bin profile the others are correlated with, when it is"
              + " among the runs (its base variant; default ${DEFAULT-VALUE}).")
  String positionsReference;

  @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
  ServiceOptions serviceOptions = new ServiceOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    if (topK < 1 || topK > 10_000) {
      throw new InvalidInputException("--top-k", "--top-k must be within 1..10000, got " + topK);
    }
    if (shards < 1 || shards > dev.tenbin.eval.job.JobSpec.MAX_SHARDS) {
      throw new InvalidInputException(
          "--shards",
          "--shards must be within 1.."
              + dev.tenbin.eval.job.JobSpec.MAX_SHARDS
              + ", got "
              + shards);
    }
    if (replicas < 1 || replicas > dev.tenbin.eval.job.JobSpec.MAX_REPLICAS) {
      throw new InvalidInputException(
          "--replicas",
          "--replicas must be within 1.."
              + dev.tenbin.eval.job.JobSpec.MAX_REPLICAS
              + ", got "
              + replicas);
    }
    if (latencyConcurrency < 1 || latencyConcurrency > LatencyProbe.MAX_CONCURRENCY) {
      throw new InvalidInputException(
          "--latency-concurrency",
          "--latency-concurrency must be within 1.."
              + LatencyProbe.MAX_CONCURRENCY
              + ", got "
              + latencyConcurrency);
    }
    List<RetrieverSpec> specs = new ArrayList<>();
    if (rerankers.isEmpty()
        || spec.commandLine().getParseResult().hasMatchedOption("--retriever")) {
      for (String retriever : retrievers) {
        specs.add(Families.parse(retriever));
      }
    }
    for (String variant : variants) {
      if (variant.startsWith("sparse_")) {
        SparseVariant.parse(variant);
      } else if (HybridFusion.isFusionVariant(variant)) {
        HybridFusion.parse(variant);
      } else {
        DenseVariant.parse(variant);
      }
      checkSomeRetrieverHas(variant, specs);
    }
    Bm25Settings bm25 = bm25Settings(specs);
    if (!candidates.equals("hybrid") && !candidates.equals("bm25")) {
      throw new InvalidInputException(
          "--candidates", "--candidates must be hybrid or bm25, got '" + candidates + "'");
    }
    DenseSimilarities.parse("--similarity", similarity);
    var endpoints = serviceOptions.toOptions();
    ReportWriter writer = out == null ? null : ReportWriter.prepare(out);

    BeirDataset data =
        BeirDatasetReader.read(
            queries == null
                ? dataset
                : CrossLingualFolder.assemble(dataset, queries, endpoints.cacheDirectory()),
            split);
    data.warnings().forEach(warning -> err.println("tenbin: warning: " + warning));
    BeirDataset lengthSource = positions ? checkPositions(data) : null;
    String resolvedLanguage;
    String languageSource;
    Path candidateFile =
        CandidateSet.file(
            candidatesDir != null
                ? candidatesDir
                : CandidateSet.defaultDirectory(data.directory(), endpoints.cacheDirectory()),
            candidates);
    List<EvalJob.Result> results;
    try (Services services = endpoints.connect();
        InterruptNotice notice =
            InterruptNotice.whileRunning(
                err,
                () ->
                    "the corpus slices encoded so far stay in the embedding cache ("
                        + endpoints.cacheDirectory()
                        + "); the same command resumes at the first slice not encoded")) {
      // The index resolves the language: the flag normalised, or detected from the corpus.
      resolvedLanguage = IndexLanguage.resolve(services.index(), language, data::textSample).code();
      if (language != null) {
        languageSource = "flag";
      } else {
        languageSource = "detected";
        err.println(
            "tenbin: language "
                + resolvedLanguage
                + " (detected from the corpus; --language overrides)");
      }
      if (!rerankers.isEmpty() && endpoints.rerank() != null) {
        services.withRerankEndpoint(endpoints.rerank());
      }
      results =
          EvalJob.run(
              services,
              endpoints.cacheDirectory(),
              new EvalJob.Request(
                  data,
                  resolvedLanguage,
                  specs,
                  variants,
                  rerankers,
                  candidates,
                  candidateFile,
                  similarity,
                  topK,
                  positions
                      ? new PositionSettings(lengthTokenizer, minCount, positionsReference)
                      : PositionSettings.DEFAULTS,
                  lengthSource,
                  bm25,
                  latencyConcurrency,
                  shards,
                  replicas),
              err);
    }
    EvalReport report =
        new EvalReport(
            data.name(),
            resolvedLanguage,
            languageSource,
            results.stream().map(EvalJob.Result::run).toList(),
            data.warnings(),
            results.stream().map(EvalJob.Result::provenance).toList(),
            positions ? analyses(results) : List.of());
    if (writer != null) {
      writer.write(report);
    }
    PrintWriter stdout = spec.commandLine().getOut();
    if (json) {
      stdout.println(report.toJson());
    } else {
      stdout.print(report.toTable());
    }
    stdout.flush();
    return 0;
  }

  /**
   * A {@code --variant} must be one that some retriever of the run has: BM25, multivector and the
   * rerank-only runs have only their base, so a variant there would silently do nothing.
   */
  private static void checkSomeRetrieverHas(String variant, List<RetrieverSpec> specs) {
    for (RetrieverSpec retriever : specs) {
      try {
        retriever.family().checkVariant("--variant", variant);
        return;
      } catch (InvalidInputException e) {
        // this retriever lacks it; another may have it
      }
    }
    throw new InvalidInputException(
        "--variant",
        "--variant "
            + variant
            + " applies to none of the retrievers "
            + (specs.isEmpty()
                ? "(none: only rerankers, which have no variants)"
                : specs.stream().map(RetrieverSpec::name).toList()
                    + " (bm25 and multivector have no variants; sparse:MODEL takes sparse_*;"
                    + " dense:MODEL and light:MODEL the dense ones)"));
  }

  /** {@code --bm25-k1} / {@code --bm25-b} over the defaults; they need the bm25 retriever. */
  private Bm25Settings bm25Settings(List<RetrieverSpec> specs) {
    if (bm25K1 == null && bm25B == null) {
      return Bm25Settings.DEFAULTS;
    }
    String flag = bm25K1 != null ? "--bm25-k1" : "--bm25-b";
    if (specs.stream().noneMatch(r -> r.family().name().equals("bm25"))) {
      throw new InvalidInputException(flag, flag + " needs --retriever bm25");
    }
    try {
      return new Bm25Settings(
          bm25K1 != null ? bm25K1 : Bm25Settings.DEFAULTS.k1(),
          bm25B != null ? bm25B : Bm25Settings.DEFAULTS.b());
    } catch (InvalidInputException e) {
      throw new InvalidInputException("--bm25-" + e.field(), e.getMessage());
    }
  }

  /**
   * Checks {@code --positions}' flags before any run starts; returns the collection whose lengths
   * bucket the analysis when {@code --length-reference} names one, else null.
   */
  private BeirDataset checkPositions(BeirDataset data) {
    if (data.spans().isEmpty()) {
      throw new InvalidInputException(
          "--positions",
          "--positions needs answer spans: "
              + dataset
              + " has no qrels/spans.tsv (query-id corpus-id start end)");
    }
    if (minCount < 1) {
      throw new InvalidInputException(
          "--min-count", "--min-count must be at least 1, got " + minCount);
    }
    // A bad tokenizer, or a length reference lacking a span document, fails before the runs.
    try (LengthTokenizer tokenizer = LengthTokenizer.open(lengthTokenizer)) {
      if (lengthReference == null) {
        return null;
      }
      BeirDataset reference = BeirDatasetReader.read(lengthReference);
      DocumentLengths.count(data, reference, tokenizer);
      return reference;
    }
  }

  /**
   * The analyses the runs' cells stored, each with its correlation to the reference run's profile
   * when {@code --positions-reference} is among the runs ({@link PositionReferences}).
   */
  private List<PositionAnalysis> analyses(List<EvalJob.Result> results) {
    PositionAnalysis reference = null;
    for (EvalJob.Result result : results) {
      CellResult run = result.run();
      if (reference == null
          && PositionReferences.isReference(
              positionsReference, run.retriever(), run.variant(), run.mode())) {
        reference = result.positions();
      }
    }
    List<PositionAnalysis> out = new ArrayList<>();
    for (EvalJob.Result result : results) {
      out.add(
          reference == null
              ? result.positions()
              : PositionAnalyzer.withReference(result.positions(), positionsReference, reference));
    }
    return out;
  }
}
