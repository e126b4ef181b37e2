package dev.tenbin.index.grpc;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.index.collection.IngestResult;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.rpc.PacedRequests;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * One Ingest call: each request is one batch, committed by the collection and acknowledged with one
 * response. Flow control is manual (grpc-java's manual flow-control pattern): the next batch is
 * asked for only once the acknowledgement of the last one can be sent ({@code isReady}), so a slow
 * commit pushes back on the client and a client that does not read its acknowledgements stops the
 * stream instead of making the server buffer them. Failures end the call with the status of the one
 * {@link StatusMapper}; batches acknowledged before it stay committed.
 */
final class IngestStream implements StreamObserver<IngestRequest> {
  private final CollectionCatalog catalog;
  private final ServerCallStreamObserver<IngestResponse> responses;
  private String collectionName;
  private long sequence;
  private long documents;
  private int batches;
  private boolean finished;
  private final PacedRequests requests;

  /** Call from the service method: installs manual flow control before the method returns. */
  IngestStream(CollectionCatalog catalog, StreamObserver<IngestResponse> responses) {
    this.catalog = catalog;
    this.responses = (ServerCallStreamObserver<IngestResponse>) responses;
    this.requests = new PacedRequests(this.responses, 1, () -> finished);
  }

  @Override
  public void onNext(IngestRequest request) {
    if (finished) {
      return;
    }
    try {
      sequence++;
      if (collectionName == null) {
        collectionName = request.getCollection();
      } else if (!request.getCollection().isEmpty()
          && !request.getCollection().equals(collectionName)) {
        throw new InvalidInputException("collection", "one ingest stream must name one collection");
      }
      IndexCollection collection = catalog.get(collectionName, "collection");
      List<IngestDocument> batch = new ArrayList<>(request.getDocumentsCount());
      for (int i = 0; i < request.getDocumentsCount(); i++) {
        batch.add(
            toIngestDocument(request.getDocuments(i), i, collection.spec().multiVectorDimension()));
      }
      IngestResult result = collection.ingest(batch);
      if (request.getMergeSegments()) {
        collection.mergeSegments();
      }
      documents += result.batchDocuments();
      batches++;
      responses.onNext(
          IngestResponse.newBuilder()
              .setDocumentsIngested(documents)
              .setBatchesCommitted(batches)
              .setDocumentCount(result.documentCount())
              .setSequence(sequence)
              .setBatchDocuments(result.batchDocuments())
              .setBatchAlreadyCommitted(result.alreadyCommitted())
              .setLastDocumentId(result.lastDocumentId())
              .setSegments(collection.segments())
              .build());
      requests.answered();
    } catch (RuntimeException failure) {
      finished = true;
      responses.onError(StatusMapper.toStatusException(failure));
    }
  }

  @Override
  public void onError(Throwable t) {
    // The client went away; acknowledged batches stay committed, nothing else was written.
    finished = true;
  }

  @Override
  public void onCompleted() {
    if (finished) {
      return;
    }
    finished = true;
    if (sequence == 0) {
      responses.onError(
          StatusMapper.toStatusException(
              new InvalidInputException(
                  "collection",
                  "an ingest stream must carry at least one message naming the collection")));
      return;
    }
    responses.onCompleted();
  }

  private static IngestDocument toIngestDocument(
      Document doc, int position, int multiVectorDimension) {
    if (doc.hasMultiVector()
        && doc.getMultiVector().getDimension() != 0
        && doc.getMultiVector().getDimension() != multiVectorDimension) {
      throw new InvalidInputException(
          "documents[" + position + "].multi_vector.dimension",
          "multi-vector dimension "
              + doc.getMultiVector().getDimension()
              + " differs from the collection's "
              + multiVectorDimension);
    }
    return new IngestDocument(
        doc.getId(),
        doc.getTitle(),
        doc.getText(),
        doc.hasDense() ? ProtoVectors.dense(doc.getDense()) : null,
        doc.hasSparse() ? ProtoVectors.sparse(doc.getSparse()) : null,
        doc.hasMultiVector() ? ProtoVectors.tokens(doc.getMultiVector()) : null);
  }
}
