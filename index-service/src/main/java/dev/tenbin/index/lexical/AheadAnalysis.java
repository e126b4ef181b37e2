package dev.tenbin.index.lexical;

import dev.tenbin.core.CancelledException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Analyses a batch's documents ahead of the one thread that adds them to a {@link Bm25Index}, so
 * that the analysis (tokenising, stemming, UTF-8 encoding) runs on other cores while the writer
 * inverts what is ready. Documents are analysed in chunks of {@value #CHUNK} on a shared pool of
 * daemon threads, one per core, at most two chunks per thread ahead of the writer, and handed back
 * in the batch's order ({@link #next()}), so the index receives the same documents in the same
 * order as without it. A batch of at most {@value #CHUNK} documents is analysed on the caller's
 * thread.
 *
 * <p>{@link #close()} stops the chunks not finished (each stops before its next document) and waits
 * for them, so no analysis outlives the batch (the analyzer belongs to the index and is closed with
 * it).
 */
public final class AheadAnalysis implements AutoCloseable {
  /** Documents per task on the pool. */
  static final int CHUNK = 128;

  private static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());

  /** Chunks analysed or being analysed and not yet taken, at most. */
  private static final int AHEAD = 2 * THREADS;

  private final Bm25Index index;
  private final List<LexicalDocument> documents;
  private final List<Future<List<AnalyzedContents>>> chunks = new ArrayList<>();
  private List<AnalyzedContents> current = List.of();
  private int taken;
  private int position;
  private volatile boolean closed;

  private AheadAnalysis(Bm25Index index, List<LexicalDocument> documents) {
    this.index = index;
    this.documents = documents;
    if (documents.size() > CHUNK) {
      submitUpTo(AHEAD);
    }
  }

  /** Starts analysing {@code documents} with {@code index}'s analyzer. */
  public static AheadAnalysis start(Bm25Index index, List<LexicalDocument> documents) {
    return new AheadAnalysis(index, documents);
  }

  /**
   * The analysed contents of the next document, in the batch's order.
   *
   * @throws CancelledException when this thread is interrupted while it waits
   * @throws RuntimeException what the analysis of the document's chunk threw
   */
  public AnalyzedContents next() {
    if (position == documents.size()) {
      throw new NoSuchElementException("every document of the batch was taken");
    }
    if (documents.size() <= CHUNK) {
      return index.analyze(documents.get(position++));
    }
    int chunk = position / CHUNK;
    if (chunk == taken) {
      current = await(chunks.get(chunk));
      chunks.set(chunk, null);
      taken++;
      submitUpTo(taken + AHEAD);
    }
    return current.get(position++ % CHUNK);
  }

  private void submitUpTo(int end) {
    int last = Math.min(end, (documents.size() + CHUNK - 1) / CHUNK);
    while (chunks.size() < last) {
      int from = chunks.size() * CHUNK;
      List<LexicalDocument> part =
          documents.subList(from, Math.min(from + CHUNK, documents.size()));
      chunks.add(Pool.EXECUTOR.submit(() -> analyse(part)));
    }
  }

  private List<AnalyzedContents> analyse(List<LexicalDocument> part) {
    List<AnalyzedContents> analysed = new ArrayList<>(part.size());
    for (LexicalDocument document : part) {
      if (closed) {
        return List.of();
      }
      analysed.add(index.analyze(document));
    }
    return analysed;
  }

  private static List<AnalyzedContents> await(Future<List<AnalyzedContents>> chunk) {
    try {
      return chunk.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancelledException("interrupted while documents were analysed");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Stops the chunks not finished and waits until none runs. */
  @Override
  public void close() {
    closed = true;
    boolean interrupted = false;
    for (Future<List<AnalyzedContents>> chunk : chunks) {
      while (chunk != null) {
        try {
          chunk.get();
          break;
        } catch (ExecutionException finished) {
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    chunks.clear();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The shared analysis threads, made when first used. */
  private static final class Pool {
    private static final AtomicInteger NUMBER = new AtomicInteger();
    static final ExecutorService EXECUTOR =
        Executors.newFixedThreadPool(
            THREADS,
            task -> {
              Thread thread = new Thread(task, "tenbin-bm25-analysis-" + NUMBER.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }
}
