package dev.tenbin.index.grpc;

import com.google.protobuf.CodedOutputStream;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.collection.DocumentCursor;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.rpc.ResponseSequence;

/**
 * The pages of an {@code ExportDocuments} call: the next documents of a {@link DocumentCursor},
 * each as {@code Ingest} takes it, up to the page size or until the page passes {@link
 * #MAX_PAGE_BYTES}, at least one document a page. A page is made only when the client can take it
 * ({@link ResponseSequence}).
 */
final class DocumentPages implements ResponseSequence.Source<ExportDocumentsResponse> {
  /** Documents a page holds when the request asks for none. */
  static final int DEFAULT_PAGE_SIZE = 100;

  /** The most documents a request may ask for in one page. */
  static final int MAX_PAGE_SIZE = 1_000;

  /** A page ends once its documents pass this many bytes on the wire. */
  static final long MAX_PAGE_BYTES = 4L << 20;

  private final DocumentCursor cursor;
  private final int pageSize;
  private boolean sentOne;

  DocumentPages(DocumentCursor cursor, int pageSize) {
    this.cursor = cursor;
    this.pageSize = pageSize;
  }

  /**
   * The page size a request's {@code page_size} asks for.
   *
   * @throws InvalidInputException naming {@code page_size} when negative or above the maximum
   */
  static int pageSize(int requested) {
    if (requested < 0 || requested > MAX_PAGE_SIZE) {
      throw new InvalidInputException(
          "page_size",
          "page_size must be within 0.."
              + MAX_PAGE_SIZE
              + " (0: the default, "
              + DEFAULT_PAGE_SIZE
              + "), got "
              + requested);
    }
    return requested == 0 ? DEFAULT_PAGE_SIZE : requested;
  }

  @Override
  public boolean hasNext() {
    // An empty collection still answers one (empty) page carrying the count.
    return cursor.hasNext() || !sentOne;
  }

  @Override
  public ExportDocumentsResponse next() {
    sentOne = true;
    ExportDocumentsResponse.Builder page =
        ExportDocumentsResponse.newBuilder().setDocumentCount(cursor.size());
    long bytes = 0;
    while (cursor.hasNext() && page.getDocumentsCount() < pageSize && bytes < MAX_PAGE_BYTES) {
      Document document = proto(cursor.next());
      bytes += CodedOutputStream.computeMessageSize(1, document);
      page.addDocuments(document);
    }
    return page.build();
  }

  /** A stored document as {@code Ingest} takes it. */
  static Document proto(IngestDocument stored) {
    Document.Builder document =
        Document.newBuilder()
            .setId(stored.id())
            .setTitle(stored.title() == null ? "" : stored.title())
            .setText(stored.text() == null ? "" : stored.text());
    if (stored.dense() != null) {
      DenseVector.Builder dense = DenseVector.newBuilder();
      for (float value : stored.dense()) {
        dense.addValues(value);
      }
      document.setDense(dense);
    }
    if (stored.sparse() != null) {
      SparseVector.Builder sparse = SparseVector.newBuilder();
      for (int index : stored.sparse().ids()) {
        sparse.addIndices(index);
      }
      for (float value : stored.sparse().weights()) {
        sparse.addValues(value);
      }
      document.setSparse(sparse);
    }
    if (stored.multiVector() != null) {
      MultiVector.Builder tokens =
          MultiVector.newBuilder()
              .setTokenCount(stored.multiVector().tokens())
              .setDimension(
                  stored.multiVector().tokens() == 0
                      ? 0
                      : stored.multiVector().values().length / stored.multiVector().tokens());
      for (float value : stored.multiVector().values()) {
        tokens.addValues(value);
      }
      document.setMultiVector(tokens);
    }
    return document.build();
  }
}
