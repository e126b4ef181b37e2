package dev.tenbin.eval.job;

import dev.tenbin.core.Sha256;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.RetrieverSpec;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.positions.StoredPositions;
import dev.tenbin.eval.provenance.RunProvenance;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.retrieval.Bm25Settings;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * {@code tenbin eval} as a job: one task (the BEIR folder), the retrievers and rerankers of the
 * command line, planned by the same families and run by the same {@link JobRunner} as {@code tenbin
 * run} (same cell fingerprints, same embedding cache, same records) into a scratch job folder under
 * {@code <cache-dir>/eval-jobs} that is deleted afterwards. A failing work item ends the run with
 * its exception; nothing is retried.
 */
public final class EvalJob {
  /**
   * What to evaluate.
   *
   * @param data the collection
   * @param language its resolved ISO 639-1 code
   * @param retrievers the retrievers, in order
   * @param variants the {@code --variant} flags (each family takes its own, see {@link
   *     RetrievalFamily#evalVariants})
   * @param rerankers reranker ids over the candidate set
   * @param candidateKind "hybrid" or "bm25"
   * @param candidateFile the stored candidate set the rerankers read (unused without rerankers)
   * @param similarity "cosine", "dot" or "best"
   * @param topK depth of the rankings
   * @param positions how runs are analysed for position bias when the collection has spans
   * @param lengthReference the collection whose documents' lengths bucket the analysis (same
   *     document ids), or null for the collection's own
   * @param bm25 k1 / b of the {@code bm25} retriever ({@code --bm25-k1}, {@code --bm25-b})
   * @param latencyConcurrency the queries in flight of the concurrent latency probe ({@code
   *     --latency-concurrency})
   */
  public record Request(
      BeirDataset data,
      String language,
      List<RetrieverSpec> retrievers,
      List<String> variants,
      List<String> rerankers,
      String candidateKind,
      Path candidateFile,
      String similarity,
      int topK,
      PositionSettings positions,
      BeirDataset lengthReference,
      Bm25Settings bm25,
      int latencyConcurrency,
      int shards,
      int replicas) {}

  /**
   * An evaluated run, the cell it was stored as, and the cell's position analysis (null when the
   * collection has no spans).
   */
  public record Result(CellResult run, RunProvenance provenance, PositionAnalysis positions) {}

  private EvalJob() {}

  /**
   * Runs {@code request} through {@code services}, encoding through the embedding cache under
   * {@code cacheDirectory}; a missing LightRetriever cache is built by the encoder (embedded or
   * remote) first. Returns the evaluated runs in plan order (retrievers, then rerankers) with their
   * cells' fingerprints and versions. Progress goes to {@code err}.
   */
  public static List<Result> run(
      Services services, Path cacheDirectory, Request request, PrintWriter err) {
    BeirDataset data = request.data();
    JobSpec spec = spec(request);
    JobTask task =
        new JobTask(
            data.name(),
            data.name(),
            data.name(),
            request.language(),
            "",
            data,
            DatasetFingerprint.of(data.directory(), data.split()),
            Map.of("dataset_path", data.directory().toAbsolutePath().toString()),
            request.lengthReference() == null
                ? null
                : new JobTask.LengthSource(
                    request.lengthReference().name(),
                    request.lengthReference(),
                    DatasetFingerprint.of(request.lengthReference().directory())));
    Path folder = scratchFolder(cacheDirectory);
    try (var cache = EmbeddingCaches.open(cacheDirectory);
        var sharing = services.shareEmbeddings(cache)) {
      JobPlanner planner =
          new JobPlanner(
              spec,
              id -> JobLauncher.encoderFacts(services, id),
              id -> JobLauncher.rerankerFacts(services, id));
      List<Work> plan = new ArrayList<>();
      for (Work work : planner.retrievers(task)) {
        plan.add(onlyItsOwnSystem((RetrievalFamily) work.kind(), work));
      }
      if (!request.rerankers().isEmpty()) {
        String fingerprint = copyCandidates(request.candidateFile(), folder.resolve("candidates"));
        plan.addAll(planner.rerank(task, Map.of(request.candidateKind(), fingerprint)));
      }
      Collector collector = new Collector(services, data, err);
      new JobRunner(
              services,
              folder,
              collector,
              () -> collector.failure.get() != null,
              EmbeddingCaches.hook(cache, new LightCaches(services::encoder)),
              Duration.ZERO)
          .run(spec, plan);
      if (collector.failure.get() != null) {
        throw collector.failure.get();
      }
      List<Result> results = new ArrayList<>();
      for (Work work : plan) {
        for (PlannedCell cell : work.cells()) {
          CellResult run = collector.runs.get(cell.fingerprint());
          if (run != null) {
            results.add(
                new Result(
                    run,
                    new RunProvenance(cell.fingerprint(), cell.versions()),
                    collector.positions.get(cell.fingerprint())));
          }
        }
      }
      return results;
    } finally {
      delete(folder);
    }
  }

  private static JobSpec spec(Request request) {
    List<RetrieverEntry> entries = new ArrayList<>();
    for (RetrieverSpec retriever : request.retrievers()) {
      entries.add(
          new RetrieverEntry(
              retriever,
              retriever.family().evalVariants(request.variants()),
              retriever.family().name().equals("bm25") ? request.bm25() : Bm25Settings.DEFAULTS));
    }
    String name = request.data().name();
    return new JobSpec(
        name,
        request.data().directory(),
        "# tenbin eval --dataset " + request.data().directory() + "\n",
        List.of(),
        List.of(),
        List.of(),
        List.copyOf(entries),
        List.copyOf(request.rerankers()),
        "",
        List.of(request.candidateKind()),
        request.similarity(),
        0.5,
        HybridFusion.MINMAX,
        request.topK(),
        request.positions(),
        request.latencyConcurrency(),
        request.shards(),
        request.replicas());
  }

  /**
   * {@code tenbin eval} reports a family's own system only (LightRetriever's dense lookup, not its
   * sparse side or hybrid).
   */
  private static Work onlyItsOwnSystem(RetrievalFamily family, Work work) {
    List<PlannedCell> cells =
        work.cells().stream().filter(c -> c.key().system().family().equals(family.name())).toList();
    return new Work(
        work.kind(), work.task(), work.model(), cells, work.artifacts(), work.candidateKind());
  }

  /**
   * Copies a stored candidate set into the job's candidate folder under the fingerprint of its
   * content.
   */
  private static String copyCandidates(Path file, Path directory) {
    try {
      byte[] content = Files.readAllBytes(file);
      String fingerprint = Sha256.hex(new String(content, java.nio.charset.StandardCharsets.UTF_8));
      Files.createDirectories(directory);
      Files.write(WorkRunner.candidateFile(directory, fingerprint), content);
      return fingerprint;
    } catch (java.nio.file.NoSuchFileException e) {
      // CandidateSet.read names the missing file and how to build it.
      dev.tenbin.eval.candidates.CandidateSet.read(file);
      throw new UncheckedIOException("cannot read the candidate set " + file, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the candidate set " + file, e);
    }
  }

  /**
   * A new folder under {@code <cache-dir>/eval-jobs} (the CLI writes only where it was told to).
   */
  private static Path scratchFolder(Path cacheDirectory) {
    try {
      Path parent = Files.createDirectories(cacheDirectory.resolve("eval-jobs"));
      return Files.createTempDirectory(parent, "eval-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a scratch job folder", e);
    }
  }

  private static void delete(Path folder) {
    try (Stream<Path> paths = Files.walk(folder)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // A scratch folder left in the temporary directory does no harm.
    }
  }

  /**
   * Prints what runs (as {@code tenbin eval} always did) and keeps every stored run and the first
   * failure.
   */
  private static final class Collector implements JobListener {
    private final Services services;
    private final BeirDataset data;
    private final PrintWriter err;
    private final EncodeProgress progress;
    private final Map<String, CellResult> runs = new LinkedHashMap<>();
    private final Map<String, PositionAnalysis> positions = new LinkedHashMap<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    Collector(Services services, BeirDataset data, PrintWriter err) {
      this.services = services;
      this.data = data;
      this.err = err;
      this.progress = EncodeProgress.printingTo(err);
    }

    @Override
    public void workStarted(Work work, int missingCells) {
      if (work.kind() instanceof RetrievalFamily family) {
        err.printf(
            "tenbin: %s on %s (%d docs, %d queries) via %s index service%n",
            family.system(work.model()),
            data.name(),
            data.corpus().size(),
            data.evaluatedQueryIds().size(),
            services.indexDescription());
      } else {
        err.printf(
            "tenbin: reranking the %s candidates of %s with %s%n",
            work.candidateKind(), data.name(), work.model());
      }
      err.flush();
    }

    @Override
    public void workProgress(Work work, long done, long total, String stage) {
      progress.update(stage, done, total);
    }

    @Override
    public void workNote(Work work, String line) {
      progress.note(line);
    }

    @Override
    public void cellStored(CellRecord record, CellResult run) {
      runs.put(record.fingerprint(), run);
      StoredPositions.of(record).ifPresent(a -> positions.put(record.fingerprint(), a));
    }

    @Override
    public void workFailed(Work work, RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }
}
