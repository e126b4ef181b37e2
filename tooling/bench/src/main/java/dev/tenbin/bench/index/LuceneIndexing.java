package dev.tenbin.bench.index;

import dev.tenbin.index.lexical.Bm25Index;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LexicalDocument;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Lucene alone indexing a corpus ({@code tenbin bench lucene}): the floor under the BM25 ingest on
 * the same machine. Each document is the one an index of this version writes ({@link
 * Bm25Index#luceneDocumentAsCreated}: id, contents counted without positions, title and text
 * stored) through the language's analyzer, added by one {@link IndexWriter} from {@code threads}
 * threads with a {@value #RAM_BUFFER_MB} MB buffer and Lucene's default merges, committed once at
 * the end, or also after every {@code commitEvery} documents (as an ingest commits each corpus
 * slice). The calling thread reads the corpus and hands batches of at most {@value #BATCH}
 * documents to the indexing threads.
 *
 * <p>None of what an ingest does beyond Lucene: no ordinals kept (the threads' documents
 * interleave), no digests, no table of ids, no gRPC, no stored collection state. The same documents
 * get the same terms and norms, so a document scores the same here as in a collection
 * (LuceneIndexingTest).
 */
public final class LuceneIndexing {
  /** The indexing buffer, large enough that a million passages flush a few times only. */
  public static final int RAM_BUFFER_MB = 1024;

  /** Documents handed to an indexing thread at a time. */
  static final int BATCH = 1000;

  /**
   * What one run indexed, how long it took (reading, indexing and the commits), its commits and its
   * segments at the end.
   */
  public record Result(long documents, double seconds, int commits, int segments) {
    public double documentsPerSecond() {
      return documents / seconds;
    }
  }

  private LuceneIndexing() {}

  /**
   * Indexes every document of {@code documents} into a new index in {@code folder} (which must not
   * hold one) with the analyzer of {@code language} on {@code threads} threads, committing after
   * every {@code commitEvery} documents (0: only at the end).
   *
   * @throws IllegalArgumentException when {@code threads} is below 1 or {@code commitEvery} below 0
   * @throws UncheckedIOException when the index cannot be written
   */
  public static Result index(
      Iterator<LexicalDocument> documents,
      String language,
      int threads,
      int commitEvery,
      Path folder) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    if (commitEvery < 0) {
      throw new IllegalArgumentException("commitEvery must be at least 0, got " + commitEvery);
    }
    int commits = 0;
    long start = System.nanoTime();
    long count = 0;
    try (Analyzer analyzer = LanguageAnalyzers.forLanguage(language);
        Directory directory = FSDirectory.open(folder);
        IndexWriter writer =
            new IndexWriter(
                directory,
                new IndexWriterConfig(analyzer)
                    .setSimilarity(new BM25Similarity())
                    .setRAMBufferSizeMB(RAM_BUFFER_MB)
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                    .setCommitOnClose(false));
        ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      // Two batches a thread in flight: the reader stays ahead without holding the corpus.
      Semaphore inFlight = new Semaphore(2 * threads);
      List<Future<?>> batches = new ArrayList<>();
      while (documents.hasNext()) {
        // A batch ends at the next commit's boundary, so each commit holds exactly its documents.
        long size = commitEvery == 0 ? BATCH : Math.min(BATCH, commitEvery - count % commitEvery);
        List<LexicalDocument> batch = new ArrayList<>((int) size);
        while (batch.size() < size && documents.hasNext()) {
          batch.add(documents.next());
        }
        count += batch.size();
        inFlight.acquire();
        batches.add(
            pool.submit(
                () -> {
                  try {
                    for (LexicalDocument document : batch) {
                      writer.addDocument(Bm25Index.luceneDocumentAsCreated(document));
                    }
                  } finally {
                    inFlight.release();
                  }
                  return null;
                }));
        failFast(batches);
        if (commitEvery > 0 && count % commitEvery == 0 && documents.hasNext()) {
          awaitAll(batches);
          writer.commit();
          commits++;
        }
      }
      awaitAll(batches);
      writer.commit();
      commits++;
      double seconds = (System.nanoTime() - start) / 1e9;
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        return new Result(count, seconds, commits, reader.leaves().size());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the Lucene index in " + folder, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while indexing", e);
    } catch (ExecutionException e) {
      throw failure(e);
    }
  }

  /**
   * Drops the batches that finished from {@code batches}, rethrowing the first failure among them,
   * so the reader stops at a failed batch and the list holds only those still running.
   */
  private static void failFast(List<Future<?>> batches)
      throws ExecutionException, InterruptedException {
    Iterator<Future<?>> running = batches.iterator();
    while (running.hasNext()) {
      Future<?> batch = running.next();
      if (batch.isDone()) {
        batch.get();
        running.remove();
      }
    }
  }

  private static void awaitAll(List<Future<?>> batches)
      throws ExecutionException, InterruptedException {
    for (Future<?> batch : batches) {
      batch.get();
    }
    batches.clear();
  }

  private static RuntimeException failure(ExecutionException e) {
    return switch (e.getCause()) {
      case RuntimeException runtime -> runtime;
      case IOException io -> new UncheckedIOException("cannot index a document: " + io, io);
      default -> new IllegalStateException("indexing failed", e.getCause());
    };
  }
}
