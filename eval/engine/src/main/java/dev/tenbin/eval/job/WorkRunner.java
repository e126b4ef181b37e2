package dev.tenbin.eval.job;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.JobSettings;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalHooks;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.retrieval.Chunking;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseSimilarities;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.DocumentWindows;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.LengthTokenizer;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs one work item through the services (its {@link Work#kind() family} does the work, with the
 * services, spec, progress and hooks given here) and turns its runs into cell records. Only the
 * cells still missing are returned (a dense model encodes and indexes once and searches only the
 * missing variants).
 */
public final class WorkRunner implements WorkContext {
  private final Services services;
  private final JobSpec spec;
  private final Path candidatesDirectory;
  private final EncodeProgress progress;
  private final RetrievalHooks cache;
  private final ResultStore store;

  /**
   * @param store the job's stored cells (what a hybrid fuses)
   */
  public WorkRunner(
      Services services,
      JobSpec spec,
      Path candidatesDirectory,
      EncodeProgress progress,
      RetrievalHooks cache,
      ResultStore store) {
    this.services = services;
    this.spec = spec;
    this.candidatesDirectory = candidatesDirectory;
    this.progress = progress;
    this.cache = cache;
    this.store = store;
  }

  /** The job's stored cell with that fingerprint, if it is stored. */
  @Override
  public Optional<CellRecord> storedCell(String fingerprint) {
    return store.read(fingerprint);
  }

  /** The candidate set file of a fingerprint. */
  public static Path candidateFile(Path candidatesDirectory, String fingerprint) {
    return candidatesDirectory.resolve(fingerprint + ".jsonl");
  }

  /** Runs {@code work}; returns records for the cells whose fingerprints are in {@code missing}. */
  public List<CellRecord> run(Work work, Set<String> missing) {
    return records(work, missing, runs(work, missing), spec.positions());
  }

  /**
   * Runs {@code work} through its family; returns the evaluated run of each cell it computed, by
   * fingerprint.
   */
  public Map<String, CellResult> runs(Work work, Set<String> missing) {
    return work.kind().run(this, work, missing);
  }

  /** The records of the cells of {@code work} that are in {@code missing} and were computed. */
  public static List<CellRecord> records(
      Work work,
      Set<String> missing,
      Map<String, CellResult> runs,
      dev.tenbin.eval.positions.PositionSettings positions) {
    List<CellRecord> records = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      CellResult run = runs.get(cell.fingerprint());
      if (run != null && missing.contains(cell.fingerprint())) {
        records.add(CellRecords.of(cell, run, work.task(), positions));
      }
    }
    return records;
  }

  @Override
  public Services services() {
    return services;
  }

  public JobSpec spec() {
    return spec;
  }

  @Override
  public JobSettings settings() {
    return spec.settings();
  }

  /** Where encode progress goes (the job's listener). */
  @Override
  public EncodeProgress progress() {
    return progress;
  }

  /** The embedding cache and LightRetriever preparation the retrieval classes run through. */
  @Override
  public RetrievalHooks hooks() {
    return cache;
  }

  /** The file of the candidate set with that fingerprint. */
  @Override
  public Path candidateFile(String fingerprint) {
    return candidateFile(candidatesDirectory, fingerprint);
  }

  /**
   * Dense runs per variant name; with similarity "best", per variant the better of cosine and dot
   * by nDCG@10.
   */
  @Override
  public Map<String, CellResult> denseRuns(
      BeirDataset data,
      String model,
      DenseRetrieval.QueryEncoding encoding,
      List<DenseVariant> variants,
      String name) {
    if (variants.isEmpty()) {
      return Map.of();
    }
    List<Similarity> similarities = DenseSimilarities.parse("similarity", spec.similarity());
    Map<Chunking, List<DenseVariant>> byChunking = new java.util.LinkedHashMap<>();
    for (DenseVariant variant : variants) {
      byChunking.computeIfAbsent(variant.chunking(), c -> new java.util.ArrayList<>()).add(variant);
    }
    Map<String, RetrievalResult> results = new java.util.LinkedHashMap<>();
    for (Map.Entry<Chunking, List<DenseVariant>> group : byChunking.entrySet()) {
      DenseRetrieval retrieval =
          cache.dense(
              new DenseRetrieval(services.indexChannel(), services.encoderChannel(), progress)
                  .withLatencyConcurrency(spec.latencyConcurrency()));
      if (group.getKey().truncates()) {
        results.putAll(
            retrieval.run(data, model, encoding, similarities, spec.topK(), group.getValue()));
        continue;
      }
      DocumentWindows windows = windows(data, model, group.getKey());
      retrieval
          .run(
              windows.dataset(data),
              model,
              encoding,
              similarities,
              windows.depth(spec.topK()),
              group.getValue())
          .forEach((key, result) -> results.put(key, windows.fold(result, spec.topK())));
    }
    return DenseSimilarities.bestPerVariant(data, name, variants, similarities, results);
  }

  /**
   * The corpus cut for {@code chunking} in {@code model}'s own tokens; a window that would not fit
   * the model with its special tokens and document prompt is refused.
   */
  private DocumentWindows windows(BeirDataset data, String model, Chunking chunking) {
    var card = EncoderClient.of(services.encoderChannel()).modelInfo(model).getCard();
    try (LengthTokenizer tokenizer = modelTokenizer(model)) {
      int room = card.getMaxLength() - 2 - tokenizer.count(card.getDocumentPrompt());
      if (chunking.window() > room) {
        throw new InvalidInputException(
            "--variant",
            "a window of "
                + chunking.window()
                + " tokens does not fit "
                + model
                + " (max length "
                + card.getMaxLength()
                + " with its special tokens and document prompt leaves "
                + room
                + ")");
      }
      return DocumentWindows.cut(data, chunking, tokenizer);
    }
  }

  /** The model's tokenizer: a built-in model's, or {@code <models dir>/<id>/tokenizer.json}. */
  private LengthTokenizer modelTokenizer(String model) {
    try {
      return LengthTokenizer.open(model);
    } catch (InvalidInputException notBuiltIn) {
      Path local = services.modelsDirectory().resolve(model);
      if (!java.nio.file.Files.isRegularFile(local.resolve("tokenizer.json"))) {
        throw new InvalidInputException(
            "--variant",
            "maxp/firstp cut documents in the model's tokens: no tokenizer.json of "
                + model
                + " here (a built-in model, or "
                + local
                + "/tokenizer.json)");
      }
      return LengthTokenizer.open(local.toString());
    }
  }
}
