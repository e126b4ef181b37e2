package dev.tenbin.index.lexical;

import dev.tenbin.core.CancelledException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;

/**
 * A batch of documents indexed on several threads at once: the batch is cut into consecutive parts,
 * and each part is analysed, inverted and flushed as a Lucene segment of its own, in memory, on a
 * shared pool of daemon threads (one per core). The index then appends the parts' segments in the
 * batch's order ({@link IndexWriter#addIndexes(Directory...)}, which copies them whole), so its doc
 * ids stay the documents' ordinals, and a part's segment holds what the index's own writer would
 * have made of the same documents (the same analyzer, similarity and fields: {@link
 * Bm25Index#luceneDocument}).
 *
 * <p>A batch is cut into at most one part per pool thread, each of at least {@value
 * #PART_DOCUMENTS} documents and {@value #PART_CHARS} characters of contents (fewer parts make
 * fewer, larger segments for the index to merge); a batch too small for two parts is not built here
 * ({@link #parts}: 1) but written by the index's own writer.
 *
 * <p>{@link #close()} stops the parts not finished (each before its next document) and waits for
 * them, so no part outlives the batch (the analyzer belongs to the index and is closed with it).
 */
final class BatchSegments implements AutoCloseable {
  /** Documents a part holds at least. */
  static final int PART_DOCUMENTS = 16;

  /** Characters of contents a part holds at least. */
  static final int PART_CHARS = 128 * 1024;

  private static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());

  private final List<Future<Directory>> parts = new ArrayList<>();
  private volatile boolean closed;

  /**
   * How many parts {@code documents} are cut into here: between 1 and the pool's threads, each of
   * at least {@value #PART_DOCUMENTS} documents and {@value #PART_CHARS} characters.
   */
  static int parts(List<LexicalDocument> documents) {
    return parts(documents, THREADS);
  }

  static int parts(List<LexicalDocument> documents, int threads) {
    long bySize = Math.min(documents.size() / PART_DOCUMENTS, length(documents) / PART_CHARS);
    return (int) Math.clamp(bySize, 1, Math.max(1, threads));
  }

  /** Characters of contents (title and text) of {@code documents}. */
  private static long length(List<LexicalDocument> documents) {
    long chars = 0;
    for (LexicalDocument document : documents) {
      chars += length(document);
    }
    return chars;
  }

  private static int length(LexicalDocument document) {
    return (document.title() == null ? 0 : document.title().length())
        + (document.text() == null ? 0 : document.text().length());
  }

  private BatchSegments() {}

  /**
   * Starts building {@code documents} (with their content digests: null, or one per document, each
   * may be null) as {@code count} segments for {@code index}, consecutive parts of nearly equal
   * contents.
   */
  static BatchSegments start(
      Bm25Index index, List<LexicalDocument> documents, List<byte[]> digests, int count) {
    BatchSegments built = new BatchSegments();
    long total = length(documents);
    int from = 0;
    long reached = 0;
    for (int part = 0; part < count; part++) {
      long goal = total * (part + 1) / count;
      int to = from;
      while (to < documents.size() && (part == count - 1 || reached < goal)) {
        reached += length(documents.get(to));
        to++;
      }
      int offset = from;
      List<LexicalDocument> slice = documents.subList(from, to);
      List<byte[]> sliceDigests = digests == null ? null : digests.subList(from, to);
      built.parts.add(Pool.EXECUTOR.submit(() -> built.build(index, slice, sliceDigests, offset)));
      from = to;
    }
    return built;
  }

  private Directory build(
      Bm25Index index, List<LexicalDocument> documents, List<byte[]> digests, int offset)
      throws IOException {
    Directory segment = new ByteBuffersDirectory();
    boolean built = false;
    try {
      IndexWriter writer = new IndexWriter(segment, index.segmentWriterConfig());
      try {
        for (int i = 0; i < documents.size(); i++) {
          if (closed) {
            throw new CancelledException("the batch was abandoned");
          }
          try {
            writer.addDocument(
                index.luceneDocument(documents.get(i), digests == null ? null : digests.get(i)));
          } catch (IllegalArgumentException refused) {
            throw new Bm25Index.RefusedDocumentException(offset + i, refused);
          }
        }
        writer.close();
      } finally {
        if (writer.isOpen()) {
          writer.rollback();
        }
      }
      built = true;
      return segment;
    } finally {
      if (!built) {
        segment.close();
      }
    }
  }

  /**
   * The parts' segments, in the batch's order, once every part is built.
   *
   * @throws Bm25Index.RefusedDocumentException when Lucene refused a document (its place in the
   *     batch); of several failures, the first part's
   * @throws CancelledException when this thread is interrupted while it waits
   */
  List<Directory> segments() {
    List<Directory> segments = new ArrayList<>(parts.size());
    for (Future<Directory> part : parts) {
      segments.add(await(part));
    }
    return segments;
  }

  private static Directory await(Future<Directory> part) {
    try {
      return part.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancelledException("interrupted while a batch's segments were built");
    } catch (ExecutionException e) {
      switch (e.getCause()) {
        case RuntimeException runtime -> throw runtime;
        case Error error -> throw error;
        case IOException io ->
            throw new UncheckedIOException(
                "cannot build a batch's segment: " + io.getMessage(), io);
        default -> throw new IllegalStateException(e.getCause());
      }
    }
  }

  /** Stops the parts not finished, waits until none runs, and frees every part's segment. */
  @Override
  public void close() {
    closed = true;
    boolean interrupted = false;
    for (Future<Directory> part : parts) {
      while (true) {
        try {
          part.get().close();
          break;
        } catch (ExecutionException | IOException finished) {
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    parts.clear();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The shared indexing threads, made when first used. */
  private static final class Pool {
    private static final AtomicInteger NUMBER = new AtomicInteger();
    static final ExecutorService EXECUTOR =
        Executors.newFixedThreadPool(
            THREADS,
            task -> {
              Thread thread = new Thread(task, "tenbin-bm25-segment-" + NUMBER.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }
}
