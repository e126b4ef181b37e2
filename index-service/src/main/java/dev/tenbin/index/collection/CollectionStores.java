package dev.tenbin.index.collection;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.dense.DenseVectorStore;
import dev.tenbin.index.lexical.Bm25Index;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LexicalDocument;
import dev.tenbin.index.multivector.MultiVectorStore;
import dev.tenbin.index.sparse.SparseVectorStore;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The stores of one collection, written as one: the Lucene BM25 index and whichever vector stores
 * the spec asks for (dense, sparse, multi-vector), all addressed by the same ordinal.
 *
 * <h2>One commit across stores</h2>
 *
 * A batch is appended to every store (nothing visible), the vector stores commit, and Lucene
 * commits last: Lucene's commit is the collection's commit point. Vector stores may therefore run
 * ahead of Lucene (a crash between the two commits) but never behind; {@link #alignToLexical()}
 * cuts them back to Lucene's documents at open and after a failure, and reports a store that is
 * behind as damaged. {@link #rollback()} returns every store to Lucene's last commit.
 */
final class CollectionStores implements Closeable {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(CollectionStores.class);
  private final Path directory;
  final Bm25Index lexical;
  final DenseVectorStore dense;
  final SparseVectorStore sparse;
  final MultiVectorStore multiVectors;

  private CollectionStores(
      Path directory,
      Bm25Index lexical,
      DenseVectorStore dense,
      SparseVectorStore sparse,
      MultiVectorStore multiVectors) {
    this.directory = directory;
    this.lexical = lexical;
    this.dense = dense;
    this.sparse = sparse;
    this.multiVectors = multiVectors;
  }

  /**
   * Opens every store the spec names under {@code directory} ({@code create}: a new collection's,
   * created empty; otherwise the BM25 index must exist); whatever opened is closed again when a
   * later one fails.
   */
  static CollectionStores open(CollectionSpec spec, Path directory, boolean create) {
    return open(spec, directory, create, UnaryOperator.identity());
  }

  /** As above, the BM25 index written through {@code luceneDirectory} (fault injection). */
  static CollectionStores open(
      CollectionSpec spec,
      Path directory,
      boolean create,
      UnaryOperator<org.apache.lucene.store.Directory> luceneDirectory) {
    List<java.io.Closeable> opened = new ArrayList<>();
    try {
      Bm25Index lexical =
          Bm25Index.open(
              directory.resolve("bm25"),
              LanguageAnalyzers.forLanguage(spec.language()),
              spec.bm25(),
              !create,
              luceneDirectory);
      opened.add(lexical);
      DenseVectorStore dense =
          spec.denseDimension() > 0
              ? DenseVectorStore.open(directory.resolve("dense"), spec.denseDimension())
              : null;
      opened.add(dense);
      SparseVectorStore sparse =
          spec.sparseVocabularySize() > 0
              ? SparseVectorStore.open(directory.resolve("sparse"), spec.sparseVocabularySize())
              : null;
      opened.add(sparse);
      MultiVectorStore multiVectors =
          spec.multiVectorDimension() > 0
              ? MultiVectorStore.open(directory.resolve("multivector"), spec.multiVectorDimension())
              : null;
      return new CollectionStores(directory, lexical, dense, sparse, multiVectors);
    } catch (RuntimeException | Error e) {
      closeQuietly(opened, e);
      throw e;
    }
  }

  /**
   * Cuts every vector store back to Lucene's committed documents (dropping a batch whose texts
   * never committed, and anything uncommitted) and returns their ids in ordinal order.
   *
   * @throws IllegalStateException when a vector store holds fewer vectors than Lucene holds
   *     documents: the stores do not belong together
   */
  DocumentIds alignToLexical() {
    DocumentIds ids = new DocumentIds();
    lexical.forEachIdInOrder(ids::add);
    int documents = ids.size();
    requireAtLeast("dense vectors", dense == null ? documents : dense.size(), documents);
    requireAtLeast("sparse vectors", sparse == null ? documents : sparse.size(), documents);
    requireAtLeast(
        "multi-vectors", multiVectors == null ? documents : multiVectors.size(), documents);
    if (dense != null) {
      noteCut("dense vectors", dense.size(), documents);
      dense.truncateTo(documents);
    }
    if (sparse != null) {
      noteCut("sparse vectors", sparse.size(), documents);
      sparse.truncateTo(documents);
    }
    if (multiVectors != null) {
      noteCut("multi-vectors", multiVectors.size(), documents);
      multiVectors.truncateTo(documents);
    }
    return ids;
  }

  private void noteCut(String store, int held, int documents) {
    if (held > documents) {
      log.warn(
          "collection in {}: cutting {} committed {} past the BM25 index's {} documents (a batch whose texts never"
              + " committed)",
          directory,
          held - documents,
          store,
          documents);
    }
  }

  private static void requireAtLeast(String store, int held, int documents) {
    if (held < documents) {
      throw new IllegalStateException(
          "the stores do not match: "
              + held
              + " "
              + store
              + " for "
              + documents
              + " committed documents");
    }
  }

  /**
   * Appends documents to every store, uncommitted. {@code positions} are the documents' places in
   * the client's batch, for error messages.
   *
   * @throws InvalidInputException when Lucene refuses a document's text (the caller rolls back)
   */
  void append(List<IngestDocument> docs, List<byte[]> digests, List<Integer> positions) {
    if (dense != null) {
      dense.append(docs.stream().map(IngestDocument::dense).toList());
    }
    if (sparse != null) {
      sparse.append(docs.stream().map(IngestDocument::sparse).toList());
    }
    if (multiVectors != null) {
      multiVectors.append(docs.stream().map(IngestDocument::multiVector).toList());
    }
    List<LexicalDocument> texts =
        docs.stream().map(doc -> new LexicalDocument(doc.id(), doc.title(), doc.text())).toList();
    try {
      lexical.add(texts, digests);
    } catch (Bm25Index.RefusedDocumentException refused) {
      throw new InvalidInputException(
          "documents[" + positions.get(refused.position()) + "].text",
          refused.immenseTerm()
              ? "the document's title and text hold a term longer than Lucene's 32,766-byte limit"
              : "the BM25 index refused the document's text");
    }
  }

  /** Commits the vector stores, then Lucene (the commit point). */
  void commit(IngestFaults faults) {
    if (dense != null) {
      dense.commit();
    }
    if (sparse != null) {
      sparse.commit();
    }
    if (multiVectors != null) {
      multiVectors.commit();
    }
    faults.at(IngestFaults.Stage.VECTORS_COMMITTED);
    lexical.commit();
  }

  /**
   * Returns every store to Lucene's last commit: Lucene rolls back and reopens, the vector stores
   * are cut back to its documents. Returns their ids in ordinal order.
   */
  DocumentIds rollback() {
    lexical.rollback();
    return alignToLexical();
  }

  long bytesOnDisk() {
    try (var files = java.nio.file.Files.walk(directory)) {
      return files
          .filter(java.nio.file.Files::isRegularFile)
          .mapToLong(p -> p.toFile().length())
          .sum();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    closeQuietly(java.util.Arrays.asList(lexical, dense, sparse, multiVectors), null);
  }

  private static void closeQuietly(List<? extends java.io.Closeable> stores, Throwable failure) {
    RuntimeException first = null;
    for (java.io.Closeable store : stores) {
      if (store == null) {
        continue;
      }
      try {
        store.close();
      } catch (java.io.IOException | RuntimeException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else if (first == null) {
          first =
              e instanceof RuntimeException r
                  ? r
                  : new java.io.UncheckedIOException((java.io.IOException) e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
