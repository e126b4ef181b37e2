package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.DenseSimilarities;
import dev.tenbin.eval.EvalReport;
import dev.tenbin.eval.EvalRun;
import dev.tenbin.eval.RunScorer;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.BeirDatasetReader;
import dev.tenbin.eval.report.ReportWriter;
import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.candidates.RerankEvaluation;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import dev.tenbin.eval.retrieval.RetrieverSpec;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.services.IndexLanguage;
import dev.tenbin.eval.services.Services;
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
 * services, and report trec_eval-exact metrics.
 */
@Command(
    name = "eval",
    mixinStandardHelpOptions = true,
    description = "Evaluate retrievers on a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).")
public final class EvalCommand implements Callable<Integer> {
  @Option(names = "--dataset", required = true, paramLabel = "DIR", description = "BEIR-format folder.")
  Path dataset;

  @Option(
      names = "--retriever",
      defaultValue = "bm25",
      split = ",",
      paramLabel = "NAME",
      description =
          "Retriever(s) to evaluate, repeatable or comma-separated: bm25, dense:MODEL (e.g."
              + " dense:bge-small-en-v1.5), light:MODEL (LightRetriever query lookup against the"
              + " model's document vectors; build its cache first with `tenbin light build`)."
              + " Default ${DEFAULT-VALUE}.")
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
              + " truncateN, truncateN_binary_rescore, ... Default for dense retrievers: base, int8,"
              + " binary, int8_rescore and binary_rescore.")
  List<String> variants = new ArrayList<>();

  @Option(
      names = "--rerank",
      paramLabel = "MODEL",
      description = "Rerank the stored candidate set with MODEL: a cross-encoder id or dense:MODEL.")
  List<String> rerankers = new ArrayList<>();

  @Option(
      names = "--candidates",
      defaultValue = "hybrid",
      description = "Candidate set for --rerank: hybrid or bm25 (default ${DEFAULT-VALUE}).")
  String candidates;

  @Option(names = "--candidates-dir", paramLabel = "DIR", description = "Where `tenbin candidates build` wrote the sets.")
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

  @CommandLine.Mixin ServiceOptions serviceOptions = new ServiceOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    if (topK < 1 || topK > 10_000) {
      throw new InvalidInputException("--top-k", "--top-k must be within 1..10000, got " + topK);
    }
    List<RetrieverSpec> specs = new ArrayList<>();
    if (rerankers.isEmpty() || spec.commandLine().getParseResult().hasMatchedOption("--retriever")) {
      for (String retriever : retrievers) {
        specs.add(RetrieverSpec.parse(retriever));
      }
    }
    for (String variant : variants) {
      if (variant.startsWith("sparse_")) {
        SparseVariant.parse(variant);
      } else {
        DenseVariant.parse(variant);
      }
    }
    if (!candidates.equals("hybrid") && !candidates.equals("bm25")) {
      throw new InvalidInputException("--candidates", "--candidates must be hybrid or bm25, got '" + candidates + "'");
    }
    List<Similarity> denseSimilarities = DenseSimilarities.parse("--similarity", similarity);
    var endpoints = serviceOptions.toOptions();
    ReportWriter writer = out == null ? null : ReportWriter.prepare(out);

    BeirDataset data = BeirDatasetReader.read(dataset);
    data.warnings().forEach(warning -> err.println("tenbin: warning: " + warning));
    List<EvalRun> runs = new ArrayList<>();
    String resolvedLanguage;
    String languageSource;
    try (Services services = Services.connect(endpoints.index(), endpoints.encoder(), endpoints.modelsDirectory(), endpoints.cacheDirectory())) {
      // The index resolves the language: the flag normalised, or detected from the corpus.
      resolvedLanguage = IndexLanguage.resolve(services.indexChannel(), language, data::textSample).code();
      if (language != null) {
        languageSource = "flag";
      } else {
        languageSource = "detected";
        err.println(
            "tenbin: language " + resolvedLanguage + " (detected from the corpus; --language overrides)");
      }
      for (RetrieverSpec retriever : specs) {
        err.printf(
            "tenbin: %s on %s (%d docs, %d queries) via %s index service%n",
            retriever.name(), data.name(), data.corpus().size(), data.evaluatedQueryIds().size(),
            services.indexDescription());
        if (retriever.family() == RetrieverSpec.Family.BM25) {
          RetrievalResult result = new Bm25Retrieval(services.indexChannel()).run(data, resolvedLanguage, topK);
          runs.add(RunScorer.score(data, retriever.name(), "base", "retrieval", result));
          continue;
        }
        if (retriever.family() == RetrieverSpec.Family.MULTIVECTOR) {
          RetrievalResult result = new MultiVectorRetrieval(services.indexChannel(), services.encoderChannel()).run(data, retriever.model(), topK);
          runs.add(RunScorer.score(data, retriever.name(), "base", "retrieval", result));
          continue;
        }
        if (retriever.family() == RetrieverSpec.Family.SPARSE || retriever.family() == RetrieverSpec.Family.SPARSE_BM25) {
          List<SparseVariant> sparseVariants = new ArrayList<>();
          variants.forEach(v -> sparseVariants.addAll(SparseVariant.parse(v)));
          if (sparseVariants.isEmpty()) {
            sparseVariants.add(SparseVariant.BASE);
          }
          var results =
              new SparseRetrieval(services.indexChannel(), services.encoderChannel())
                  .run(data, retriever.model(), retriever.family() == RetrieverSpec.Family.SPARSE_BM25, topK, sparseVariants);
          results.forEach((variant, result) -> runs.add(RunScorer.score(data, retriever.name(), variant, "retrieval", result)));
          continue;
        }
        List<DenseVariant> denseVariants = new ArrayList<>();
        variants.stream().filter(v -> !v.startsWith("sparse_")).forEach(v -> denseVariants.add(DenseVariant.parse(v)));
        if (denseVariants.isEmpty()) {
          denseVariants.addAll(
              retriever.family() == RetrieverSpec.Family.DENSE ? DenseVariant.automatic() : List.of(DenseVariant.BASE));
        }
        var results =
            new DenseRetrieval(services.indexChannel(), services.encoderChannel(), err)
                .run(
                    data, retriever.model(),
                    retriever.family() == RetrieverSpec.Family.LIGHT
                        ? DenseRetrieval.QueryEncoding.LIGHT
                        : DenseRetrieval.QueryEncoding.FULL,
                    denseSimilarities, topK, denseVariants);
        runs.addAll(DenseSimilarities.bestPerVariant(data, retriever.name(), denseVariants, denseSimilarities, results).values());
      }
      if (!rerankers.isEmpty()) {
        if (endpoints.rerank() != null) {
          services.withRerankEndpoint(endpoints.rerank());
        }
        Path directory = candidatesDir != null ? candidatesDir : CandidateSet.defaultDirectory(dataset);
        CandidateSet set = CandidateSet.read(CandidateSet.file(directory, candidates));
        for (String reranker : rerankers) {
          err.printf("tenbin: reranking the %s candidates of %s with %s%n", candidates, data.name(), reranker);
          runs.addAll(new RerankEvaluation(services.rerankChannel()).run(data, set, reranker));
        }
      }
    }
    EvalReport report =
        new EvalReport(data.name(), resolvedLanguage, languageSource, runs, data.warnings());
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
}
