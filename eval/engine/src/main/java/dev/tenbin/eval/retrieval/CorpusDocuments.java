package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.cache.SliceEncoding;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.scoring.beir.CorpusDocument;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A corpus walk made into the index's documents as an ingest pulls them: only the slice being
 * encoded and the batches in flight are in memory, whatever the corpus's size.
 */
final class CorpusDocuments {
  /**
   * Documents in a corpus slice: slice {@code i} holds the documents {@code [i × SLICE, (i + 1) ×
   * SLICE)} in corpus order. A slice is the unit of the dense encode (encoded while the index
   * ingests the previous one, stored whole in the embedding cache) and of an interrupted work
   * item's resume: the slices its collection had committed are not ingested again ({@link
   * IndexSession}).
   */
  static final int SLICE = 4_096;

  private CorpusDocuments() {}

  /** How many slices a corpus of {@code documents} documents makes (the last may be short). */
  static int sliceCount(long documents) {
    return Math.toIntExact((documents + SLICE - 1) / SLICE);
  }

  /** Documents in slice {@code slice} of a corpus of {@code documents} documents. */
  static int sliceSize(int slice, long documents) {
    return (int) Math.min(SLICE, documents - (long) slice * SLICE);
  }

  /**
   * The next {@code size} documents of {@code corpus} (fewer at its end): one slice, when the walk
   * is at a slice boundary.
   */
  static List<CorpusDocument> nextSlice(Iterator<CorpusDocument> corpus, int size) {
    List<CorpusDocument> slice = new ArrayList<>(size);
    while (slice.size() < size && corpus.hasNext()) {
      slice.add(corpus.next());
    }
    return slice;
  }

  /**
   * Slices in {@code shard}'s share of a corpus of {@code documents} documents ({@link #shareOf}):
   * those whose number leaves {@code shard} when divided by {@code shards}.
   */
  static int shareSlices(long documents, int shard, int shards) {
    int slices = sliceCount(documents);
    return slices <= shard ? 0 : (slices - shard + shards - 1) / shards;
  }

  /** Documents in {@code shard}'s share of a corpus of {@code documents} documents. */
  static long shareDocuments(long documents, int shard, int shards) {
    int slices = sliceCount(documents);
    long inShare = 0;
    for (int slice = shard; slice < slices; slice += shards) {
      inShare += sliceSize(slice, documents);
    }
    return inShare;
  }

  /**
   * The documents of {@code shard}'s share of a corpus walked from its start: those of the slices
   * whose number leaves {@code shard} when divided by {@code shards}, in corpus order (the others
   * are read past). Cut into {@link #SLICE}s again they are those slices, whole.
   */
  static Iterator<CorpusDocument> shareOf(Iterator<CorpusDocument> corpus, int shard, int shards) {
    if (shard < 0 || shard >= shards) {
      throw new IllegalArgumentException("shard " + shard + " of " + shards);
    }
    return new Iterator<>() {
      private long read;

      private boolean ours() {
        return (read / SLICE) % shards == shard;
      }

      @Override
      public boolean hasNext() {
        while (!ours() && corpus.hasNext()) {
          corpus.next();
          read++;
        }
        return ours() && corpus.hasNext();
      }

      @Override
      public CorpusDocument next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        read++;
        return corpus.next();
      }
    };
  }

  /** The documents as they are (title and text; BM25). */
  static Iterator<Document> lexical(Iterator<CorpusDocument> corpus) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return corpus.hasNext();
      }

      @Override
      public Document next() {
        return base(corpus.next()).build();
      }
    };
  }

  /** A document's id, title and text. */
  static Document.Builder base(CorpusDocument doc) {
    return Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text());
  }

  /**
   * The documents with their encodings, encoded {@code sliceSize} at a time when the ingest asks
   * for the next one: slice {@code i} holds the documents {@code [i × sliceSize, (i + 1) ×
   * sliceSize)} in corpus order, so the boundaries are the same in every run. Up to {@code
   * slicesInFlight} slices are encoded at once (one per encoder replica, each slice one streamed
   * call that round_robin places on a replica), finishing in any order; their documents are handed
   * to the ingest in corpus order, and {@code settled} sees each slice in corpus order. With one in
   * flight a slice is encoded on the ingest's thread when it is asked for, as before. The encode
   * time is counted apart: the slices' measured encode times ({@link #encodeNanos}, which for a
   * slice encoded by an earlier run is the time measured then; slices encoded at once each count
   * their own time) and the time this run spent waiting for the encode ({@link #encodeWallNanos}).
   *
   * <p>{@code encode} must be safe to call from several threads when more than one slice is in
   * flight. When a slice fails, the slices in flight with it are left to finish (each is stored on
   * its own, so a later run does not encode them again) before the first failure in corpus order is
   * thrown.
   *
   * @param <V> an encoding
   */
  static final class Encoded<V> implements Iterator<Document> {
    /** What the caller does with a slice once it is encoded, in corpus order. */
    @FunctionalInterface
    interface Settled<V> {
      void accept(int slice, List<CorpusDocument> documents, SliceEncoding<V> encoded);
    }

    private final Iterator<CorpusDocument> corpus;
    private final int sliceSize;
    private final int slicesInFlight;
    private final Function<List<CorpusDocument>, SliceEncoding<V>> encode;
    private final Settled<V> settled;
    private final BiFunction<Document.Builder, V, Document.Builder> attach;
    private final Deque<Document> ready = new ArrayDeque<>();
    private final Deque<Pending<V>> inFlight = new ArrayDeque<>();
    private long encodeNanos;
    private long encodeWallNanos;
    private int slices;
    private int slicesEncodedBefore;
    private V first;

    /** A slice handed to a thread of its own, and its outcome. */
    private record Pending<V>(
        List<CorpusDocument> documents, CompletableFuture<SliceEncoding<V>> encoding) {}

    Encoded(
        Iterator<CorpusDocument> corpus,
        int sliceSize,
        Function<List<CorpusDocument>, SliceEncoding<V>> encode,
        BiFunction<Document.Builder, V, Document.Builder> attach) {
      this(corpus, sliceSize, 1, encode, (slice, documents, encoded) -> {}, attach);
    }

    Encoded(
        Iterator<CorpusDocument> corpus,
        int sliceSize,
        int slicesInFlight,
        Function<List<CorpusDocument>, SliceEncoding<V>> encode,
        Settled<V> settled,
        BiFunction<Document.Builder, V, Document.Builder> attach) {
      if (slicesInFlight < 1) {
        throw new IllegalArgumentException(
            "slices in flight must be at least 1, got " + slicesInFlight);
      }
      this.corpus = corpus;
      this.sliceSize = sliceSize;
      this.slicesInFlight = slicesInFlight;
      this.encode = encode;
      this.settled = settled;
      this.attach = attach;
    }

    private List<CorpusDocument> nextSlice() {
      return CorpusDocuments.nextSlice(corpus, sliceSize);
    }

    private void fill() {
      if (!ready.isEmpty()) {
        return;
      }
      EncodedSlice<V> next = settleNextSlice();
      if (next == null) {
        return;
      }
      for (int i = 0; i < next.documents().size(); i++) {
        ready.addLast(attach.apply(base(next.documents().get(i)), next.values().get(i)).build());
      }
    }

    /** A slice's documents and their encodings, in corpus order. */
    private record EncodedSlice<V>(List<CorpusDocument> documents, List<V> values) {}

    /**
     * Encodes every slice not yet taken and settles each, in corpus order, without making their
     * documents (a shard's share of a corpus: the index takes none of them).
     */
    void settleAll() {
      while (settleNextSlice() != null) {
        // each slice is settled (stored in the embedding cache) as it comes
      }
    }

    /**
     * The next slice, encoded (up to {@code slicesInFlight} at once) and settled, its times
     * counted; null once the corpus is done.
     */
    private EncodedSlice<V> settleNextSlice() {
      long start = System.nanoTime();
      List<CorpusDocument> slice;
      SliceEncoding<V> encoded;
      if (slicesInFlight == 1) {
        if (!corpus.hasNext()) {
          return null;
        }
        slice = nextSlice();
        encoded = encode.apply(slice);
      } else {
        while (inFlight.size() < slicesInFlight && corpus.hasNext()) {
          List<CorpusDocument> documents = nextSlice();
          CompletableFuture<SliceEncoding<V>> encoding = new CompletableFuture<>();
          Thread.ofVirtual()
              .name("encode-slice-" + (slices + inFlight.size()))
              .start(
                  () -> {
                    try {
                      encoding.complete(encode.apply(documents));
                    } catch (Throwable failure) {
                      encoding.completeExceptionally(failure);
                    }
                  });
          inFlight.addLast(new Pending<>(documents, encoding));
        }
        Pending<V> head = inFlight.pollFirst();
        if (head == null) {
          return null;
        }
        slice = head.documents();
        encoded = awaitOrSettleAll(head.encoding());
      }
      encodeWallNanos += System.nanoTime() - start;
      settled.accept(slices, slice, encoded);
      encodeNanos += encoded.encodeNanos();
      slices++;
      if (encoded.encodedBefore()) {
        slicesEncodedBefore++;
      }
      List<V> encodings = encoded.values();
      if (encodings.size() != slice.size()) {
        throw new IllegalStateException(
            "the encoder answered "
                + encodings.size()
                + " encodings for "
                + slice.size()
                + " texts");
      }
      if (first == null && !encodings.isEmpty()) {
        first = encodings.getFirst();
      }
      return new EncodedSlice<>(slice, encodings);
    }

    /**
     * Waits for the slices still being encoded (each stores itself), their failures ignored: called
     * when the ingest ends early, so that no encode outlives the work item that asked for it.
     */
    void awaitInFlight() {
      for (Pending<V> other : inFlight) {
        other.encoding().exceptionally(ignored -> null).join();
      }
      inFlight.clear();
    }

    /**
     * The head slice's encoding; when it failed, waits for the slices in flight with it (each
     * stores itself) and throws its failure.
     */
    private SliceEncoding<V> awaitOrSettleAll(CompletableFuture<SliceEncoding<V>> head) {
      try {
        return head.join();
      } catch (CompletionException failed) {
        awaitInFlight();
        Throwable cause = failed.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw failed;
      }
    }

    /** The first document's encoding (encoding the first slice if needed), or null for none. */
    V first() {
      fill();
      return first;
    }

    @Override
    public boolean hasNext() {
      fill();
      return !ready.isEmpty();
    }

    @Override
    public Document next() {
      fill();
      if (ready.isEmpty()) {
        throw new NoSuchElementException();
      }
      return ready.pollFirst();
    }

    /** The measured encode times of the slices so far. */
    long encodeNanos() {
      return encodeNanos;
    }

    /** The time this run spent encoding (or reading back) the slices so far. */
    long encodeWallNanos() {
      return encodeWallNanos;
    }

    /** Slices encoded so far. */
    int slices() {
      return slices;
    }

    /** Of those, slices read back whole, encoded by an earlier run. */
    int slicesEncodedBefore() {
      return slicesEncodedBefore;
    }
  }
}
