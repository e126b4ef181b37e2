package dev.tenbin.bench.encoder;

import dev.tenbin.bench.index.FmaPeak;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.EncodeResult;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.onnx.OnnxGraphCost;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The encoder's document throughput as a fraction of the machine's arithmetic peak: documents are
 * encoded in-process (tokenizer, token-budget batcher, ONNX Runtime, pooling; no transport) at
 * several token budgets per pass, and the useful FLOP of each pass, counted from the graph ({@link
 * OnnxGraphCost}) over the real tokens of each document (no padding, attention over the document's
 * own length), is divided by its wall time. The peak is the one {@link FmaPeak} defines (256-bit
 * FMAs on every core), measured in the same run unless given.
 *
 * <p>Each budget gets a core of its own over the same runtime settings, warmed up on the whole set
 * once, then timed over {@code passes} passes; the fastest pass counts (the least disturbed by the
 * rest of the machine).
 */
public final class EncoderThroughput {
  /** One batch shape's figures. */
  public record Shape(
      int batchTokens,
      double docsPerSecond,
      double tokensPerSecond,
      double paddedShare,
      double gflops,
      double tokenizeShare,
      double inferenceShare) {}

  /**
   * The figures of one model.
   *
   * @param documentPrompt the prompt the model's card puts before each document
   * @param tokens real tokens of the documents, special tokens included
   * @param flop useful FLOP of one pass over the documents
   * @param peak512Gflops the 512-bit FMA peak, measured in this run
   * @param vectors the pooled vectors of the best shape's last pass, in document order
   */
  public record Result(
      String model,
      String documentPrompt,
      int documents,
      long tokens,
      int threads,
      OnnxGraphCost cost,
      double flop,
      List<Shape> shapes,
      Shape best,
      double peakGflops,
      boolean peakMeasured,
      double peak512Gflops,
      List<float[]> vectors) {
    /** Of the 256-bit FMA peak, the one the index benchmarks divide by. */
    public double fractionOfPeak() {
      return best.gflops() / peakGflops;
    }

    /** Of the 512-bit FMA peak, the one a library using AVX-512 can reach. */
    public double fractionOf512BitPeak() {
      return best.gflops() / peak512Gflops;
    }
  }

  private EncoderThroughput() {}

  /**
   * Measures {@code modelId} on {@code documents} (their document prompt is added by the core) at
   * each of {@code budgets} tokens per pass.
   *
   * @param peakGflops the peak to divide by; 0 or less to measure it now
   */
  public static Result run(
      EncoderServiceConfig config,
      String modelId,
      List<String> documents,
      List<Integer> budgets,
      int passes,
      double peakGflops) {
    if (budgets.isEmpty() || passes < 1 || documents.isEmpty()) {
      throw new IllegalArgumentException("need documents, at least one budget and one pass");
    }
    List<Shape> shapes = new ArrayList<>();
    Shape best = null;
    List<float[]> bestVectors = List.of();
    OnnxGraphCost cost = null;
    String prompt = "";
    long tokens = 0;
    double flop = 0;
    for (int budget : budgets) {
      BatchingLimits base = config.batching();
      BatchingLimits limits =
          new BatchingLimits(
              budget,
              base.maxBatchSize(),
              base.maxQueuedInputs(),
              base.maxQueueDelay(),
              base.maxQueueWait());
      try (EncoderCore core = new EncoderCore(config.withBatching(limits))) {
        LoadedModel model = core.model(modelId);
        if (cost == null) {
          cost = model.graphCost();
          prompt = model.card().documentPrompt();
          String documentPrompt = prompt;
          List<String> prompted = documents.stream().map(d -> documentPrompt + d).toList();
          for (long[] ids : model.tokenizer().encode(prompted).ids()) {
            tokens += ids.length;
            flop += cost.flopPerSequence(ids.length);
          }
        }
        core.encodeDense(modelId, documents, false, 0, Cancellation.NEVER);
        double bestSeconds = Double.MAX_VALUE;
        EncodeResult<float[]> fastest = null;
        for (int pass = 0; pass < passes; pass++) {
          long start = System.nanoTime();
          EncodeResult<float[]> result =
              core.encodeDense(modelId, documents, false, 0, Cancellation.NEVER);
          double seconds = (System.nanoTime() - start) / 1e9;
          if (seconds < bestSeconds) {
            bestSeconds = seconds;
            fastest = result;
          }
        }
        double wallNanos = bestSeconds * 1e9;
        Shape shape =
            new Shape(
                budget,
                documents.size() / bestSeconds,
                tokens / bestSeconds,
                fastest.paddedTokens() == 0
                    ? 0
                    : 1.0 - (double) fastest.inputTokens() / fastest.paddedTokens(),
                flop / bestSeconds / 1e9,
                fastest.tokenizeNanos() / wallNanos,
                fastest.inferenceNanos() / wallNanos);
        shapes.add(shape);
        if (best == null || shape.gflops() > best.gflops()) {
          best = shape;
          bestVectors = fastest.vectors();
        }
      }
    }
    int cores = Runtime.getRuntime().availableProcessors();
    boolean measured = peakGflops <= 0;
    double peak = measured ? measurePeakGflops(cores, false) : peakGflops;
    double peak512 = measurePeakGflops(cores, true);
    return new Result(
        modelId,
        prompt,
        documents.size(),
        tokens,
        config.runtime().intraOpThreads(),
        cost,
        flop,
        shapes,
        best,
        peak,
        measured,
        peak512,
        bestVectors);
  }

  /** Calls of one round each that warm the FMA kernel up before it is timed. */
  private static final int WARM_UP_CALLS = 20_000;

  /**
   * GFLOP/s of {@link FmaPeak#kernel} (or, {@code wide}, {@link FmaPeak#kernel512}) on {@code
   * threads} threads at once: five untimed rounds, then the best of five. Before them the kernel is
   * called {@value #WARM_UP_CALLS} times with one round each, so that the JIT compiles it with its
   * vector intrinsics first: a first call of two million rounds would run mostly in the Vector
   * API's scalar fallback (about 20 s for the 512-bit kernel on two cores).
   */
  public static double measurePeakGflops(int threads, boolean wide) {
    int rounds = 2_000_000;
    float[] a = new float[FmaPeak.LENGTH];
    float[] b = new float[FmaPeak.LENGTH];
    for (int i = 0; i < a.length; i++) {
      a[i] = (i % 7) / 8f;
      b[i] = (i % 5) / 4f;
    }
    double warm = 0;
    for (int call = 0; call < WARM_UP_CALLS; call++) {
      warm += wide ? FmaPeak.kernel512(a, b, 1) : FmaPeak.kernel(a, b, 1);
    }
    if (Double.isNaN(warm)) {
      throw new IllegalStateException("the peak kernel diverged");
    }
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      double best = 0;
      for (int round = 0; round < 10; round++) {
        List<Future<Double>> work = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
          work.add(
              pool.submit(
                  () -> wide ? FmaPeak.kernel512(a, b, rounds) : FmaPeak.kernel(a, b, rounds)));
        }
        double sink = 0;
        for (Future<Double> f : work) {
          sink += f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (Double.isNaN(sink)) {
          throw new IllegalStateException("the peak kernel diverged");
        }
        if (round >= 5) {
          long flop = wide ? FmaPeak.flop512(rounds) : FmaPeak.flop(rounds);
          best = Math.max(best, threads * (double) flop / seconds / 1e9);
        }
      }
      return best;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring the FMA peak", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("the peak kernel failed", e.getCause());
    }
  }
}
