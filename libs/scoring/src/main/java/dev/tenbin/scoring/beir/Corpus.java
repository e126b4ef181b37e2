package dev.tenbin.scoring.beir;

import dev.tenbin.scoring.text.WhitespaceSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A collection's documents in file order. A collection read from a folder is walked from its file
 * each time ({@code corpus.jsonl} or {@code corpus.jsonl.gz}): its documents are never held in
 * memory together, so a walk costs memory in the size of one document, whatever the corpus's size.
 * A small collection made in memory (tests, Nano-sets being built) is a list ({@link #of}).
 *
 * <p>Each {@link #iterator()} is a new walk from the first document; an iterator walked to its end
 * closes its file, and one left before the end is closed by {@link #forEach(Consumer)} and {@link
 * #slices} (use those, or walk to the end). A folder whose corpus file changes between walks is an
 * error ({@link DatasetException}), not another corpus.
 */
public interface Corpus extends Iterable<CorpusDocument> {

  /** The number of documents. */
  int size();

  /** Whether there is no document. */
  default boolean isEmpty() {
    return size() == 0;
  }

  /**
   * The whitespace-separated words ({@link WhitespaceSplit}) of every document's title and text,
   * summed: counted in one walk here, and by a corpus file in the walk that checked it.
   */
  default long words() {
    long words = 0;
    for (CorpusDocument document : this) {
      words += WhitespaceSplit.count(document.titleAndText());
    }
    return words;
  }

  /**
   * A walk over the documents in order that the caller closes (its file is closed): for a walk that
   * another component pulls from, such as an ingest stream.
   */
  Walk walk();

  /** An iterator over the documents that closes what it reads. */
  interface Walk extends Iterator<CorpusDocument>, AutoCloseable {
    @Override
    void close();

    /** A walk over an iterator that holds nothing to close. */
    static Walk over(Iterator<CorpusDocument> documents) {
      return new Walk() {
        @Override
        public boolean hasNext() {
          return documents.hasNext();
        }

        @Override
        public CorpusDocument next() {
          return documents.next();
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Walks every document in order; a consumer that throws ends the walk (its file is closed). */
  @Override
  void forEach(Consumer<? super CorpusDocument> action);

  /**
   * Walks the documents in consecutive slices of {@code sliceSize} (the last may be shorter), in
   * order: slice {@code s} holds documents {@code s × sliceSize} up to the next slice's first. The
   * boundaries depend on nothing but the corpus and {@code sliceSize}.
   */
  default void slices(int sliceSize, SliceConsumer consumer) {
    if (sliceSize < 1) {
      throw new IllegalArgumentException("slice size must be at least 1, got " + sliceSize);
    }
    List<CorpusDocument> slice = new ArrayList<>(Math.min(sliceSize, Math.max(1, size())));
    int[] index = {0};
    forEach(
        document -> {
          slice.add(document);
          if (slice.size() == sliceSize) {
            consumer.accept(index[0]++, List.copyOf(slice));
            slice.clear();
          }
        });
    if (!slice.isEmpty()) {
      consumer.accept(index[0], List.copyOf(slice));
    }
  }

  /**
   * The documents as a stream: consume it whole (its file closes at the end) or close it; for the
   * first few, {@link #head}.
   */
  default java.util.stream.Stream<CorpusDocument> stream() {
    Walk walk = walk();
    return java.util.stream.StreamSupport.stream(
            java.util.Spliterators.spliterator(
                walk, size(), java.util.Spliterator.ORDERED | java.util.Spliterator.NONNULL),
            false)
        .onClose(walk::close);
  }

  /** The number of slices of {@code sliceSize} documents {@link #slices} walks. */
  default int sliceCount(int sliceSize) {
    return (size() + sliceSize - 1) / sliceSize;
  }

  /** What receives the slices of a walk. */
  @FunctionalInterface
  interface SliceConsumer {
    /**
     * @param index the slice's number, from 0
     * @param documents its documents, in corpus order
     */
    void accept(int index, List<CorpusDocument> documents);
  }

  /**
   * Walks the documents in order while {@code action} returns true; the first false ends the walk
   * (its file is closed).
   */
  default void forEachWhile(java.util.function.Predicate<? super CorpusDocument> action) {
    try {
      forEach(
          document -> {
            if (!action.test(document)) {
              throw new StopWalk();
            }
          });
    } catch (StopWalk done) {
      // ended by the action
    }
  }

  /** The first {@code count} documents (all of them when there are fewer), read into a list. */
  default List<CorpusDocument> head(int count) {
    List<CorpusDocument> head = new ArrayList<>(Math.max(0, Math.min(count, size())));
    if (count > 0) {
      forEachWhile(document -> head.add(document) && head.size() < count);
    }
    return head;
  }

  /** The documents whose ids are in {@code ids}, by id, in corpus order: one walk. */
  default Map<String, CorpusDocument> documents(Collection<String> ids) {
    Set<String> wanted = ids instanceof Set<String> set ? set : Set.copyOf(ids);
    Map<String, CorpusDocument> found = new LinkedHashMap<>();
    forEach(
        document -> {
          if (wanted.contains(document.id())) {
            found.put(document.id(), document);
          }
        });
    return found;
  }

  /** Every document read into a list: for small collections only (a Nano-set, a test). */
  default List<CorpusDocument> toList() {
    List<CorpusDocument> all = new ArrayList<>(size());
    forEach(all::add);
    return all;
  }

  /** A corpus of documents held in memory, in the given order. */
  static Corpus of(List<CorpusDocument> documents) {
    return new ListCorpus(List.copyOf(documents));
  }

  /** Ends a walk early (see {@link #forEachWhile}). */
  final class StopWalk extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StopWalk() {
      super(null, null, false, false);
    }
  }

  /** A corpus in memory. */
  record ListCorpus(List<CorpusDocument> documents) implements Corpus {
    @Override
    public int size() {
      return documents.size();
    }

    @Override
    public Iterator<CorpusDocument> iterator() {
      return documents.iterator();
    }

    @Override
    public Walk walk() {
      return Walk.over(documents.iterator());
    }

    @Override
    public void forEach(Consumer<? super CorpusDocument> action) {
      documents.forEach(action);
    }

    @Override
    public List<CorpusDocument> toList() {
      return documents;
    }
  }
}
