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
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A corpus walk made into the index's documents as an ingest pulls them: only the slice being
 * encoded and the batches in flight are in memory, whatever the corpus's size.
 */
final class CorpusDocuments {
  private CorpusDocuments() {}

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
   * sliceSize)} in corpus order, so the boundaries are the same in every run. The encode time is
   * counted apart: the slices' measured encode times ({@link #encodeNanos}, which for a slice
   * encoded by an earlier run is the time measured then) and the time this run spent in the encode
   * ({@link #encodeWallNanos}).
   *
   * @param <V> an encoding
   */
  static final class Encoded<V> implements Iterator<Document> {
    private final Iterator<CorpusDocument> corpus;
    private final int sliceSize;
    private final Function<List<CorpusDocument>, SliceEncoding<V>> encode;
    private final BiFunction<Document.Builder, V, Document.Builder> attach;
    private final Deque<Document> ready = new ArrayDeque<>();
    private long encodeNanos;
    private long encodeWallNanos;
    private int slices;
    private int slicesEncodedBefore;
    private V first;

    Encoded(
        Iterator<CorpusDocument> corpus,
        int sliceSize,
        Function<List<CorpusDocument>, SliceEncoding<V>> encode,
        BiFunction<Document.Builder, V, Document.Builder> attach) {
      this.corpus = corpus;
      this.sliceSize = sliceSize;
      this.encode = encode;
      this.attach = attach;
    }

    private void fill() {
      if (!ready.isEmpty() || !corpus.hasNext()) {
        return;
      }
      List<CorpusDocument> slice = new ArrayList<>(sliceSize);
      while (slice.size() < sliceSize && corpus.hasNext()) {
        slice.add(corpus.next());
      }
      long start = System.nanoTime();
      SliceEncoding<V> encoded = encode.apply(slice);
      encodeWallNanos += System.nanoTime() - start;
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
      for (int i = 0; i < slice.size(); i++) {
        if (first == null) {
          first = encodings.get(i);
        }
        ready.addLast(attach.apply(base(slice.get(i)), encodings.get(i)).build());
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
