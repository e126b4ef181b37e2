package dev.tenbin.rerank.documents;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.rerank.CandidateTexts;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Candidates given as ids of an index-service collection ({@code RerankRequest.index_documents}):
 * their stored title and text are fetched with the index service's {@code GetDocuments} and joined
 * as inline candidates' text is ({@link #candidateText}), so they are scored exactly as inline
 * candidates with the same text.
 *
 * <p>Ids go in calls of at most {@value #IDS_PER_CALL}; a call the index refuses as too large is
 * split in halves. The index's errors come back naming this request's fields ({@code
 * index_documents.collection}, {@code index_documents.ids[i]}).
 */
public final class IndexDocuments implements CandidateTexts {
  /** Ids per GetDocuments call (a call whose documents pass the index's size limit is split). */
  static final int IDS_PER_CALL = 256;

  private static final long DEADLINE_SECONDS = 120;

  private final Supplier<IndexClient> index;

  private IndexDocuments(Supplier<IndexClient> index) {
    this.index = index;
  }

  /**
   * Documents fetched through {@code channel} (opened on first use); {@link CandidateTexts#none()}
   * when {@code channel} is null.
   */
  public static CandidateTexts through(Supplier<? extends Channel> channel) {
    return channel == null
        ? CandidateTexts.none()
        : new IndexDocuments(() -> IndexClient.of(channel.get()));
  }

  /**
   * Documents fetched from the index {@code index} gives (asked on first use); {@link
   * CandidateTexts#none()} when {@code index} is null.
   */
  public static CandidateTexts fromClient(Supplier<IndexClient> index) {
    return index == null ? CandidateTexts.none() : new IndexDocuments(index);
  }

  /**
   * The collection a call to the index is about ({@code GetDocuments}, the only call made here),
   * the key that sends it to the index pod holding the collection.
   */
  public static String collectionOf(Object request) {
    return request instanceof GetDocumentsRequest documents ? documents.getCollection() : null;
  }

  /**
   * The text a candidate of a stored document is scored on: title, a space, then text; the text
   * alone when the title is empty (as BM25 indexes it, and as the orchestrator sends inline
   * candidates).
   */
  public static String candidateText(String title, String text) {
    return title.isEmpty() ? text : title + " " + text;
  }

  /**
   * The candidates of {@code ids} in {@code collection}, in the order of {@code ids}.
   *
   * @throws PreconditionException naming {@code index_documents} when no index service is
   *     configured, or {@code index_documents.collection} when the collection stores no text
   * @throws NotFoundException naming {@code index_documents.collection} or {@code
   *     index_documents.ids[i]}
   * @throws UnavailableException when the index service cannot be reached
   */
  @Override
  public List<RerankCore.Candidate> fetch(String collection, List<String> ids) {
    return fetch(collection, 1, 1, ids);
  }

  /**
   * The candidates of {@code ids} in {@code collection} split into {@code shards} shards of {@code
   * replicas} replicas ({@link ShardedCollection}): each id fetched from its shard, from one live
   * replica of it, in the order of {@code ids}.
   */
  @Override
  public List<RerankCore.Candidate> fetch(
      String collection, int shards, int replicas, List<String> ids) {
    IndexClient index = this.index.get().withDeadline(Duration.ofSeconds(DEADLINE_SECONDS));
    ShardedCollection sharded = new ShardedCollection(index, collection, shards, replicas);
    List<RerankCore.Candidate> candidates = new ArrayList<>(ids.size());
    for (int from = 0; from < ids.size(); from += IDS_PER_CALL) {
      fetch(sharded, ids, from, Math.min(ids.size(), from + IDS_PER_CALL), candidates);
    }
    return candidates;
  }

  private static void fetch(
      ShardedCollection collection,
      List<String> ids,
      int from,
      int to,
      List<RerankCore.Candidate> into) {
    List<StoredDocument> documents;
    try {
      documents =
          collection
              .getDocuments(
                  GetDocumentsRequest.newBuilder()
                      .setCollection(collection.name())
                      .addAllIds(ids.subList(from, to))
                      .build())
              .getDocumentsList();
    } catch (StatusRuntimeException e) {
      String field = StatusMapper.violatedField(e);
      if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT
          && "ids".equals(field)
          && to - from > 1) {
        int middle = (from + to) >>> 1;
        fetch(collection, ids, from, middle, into);
        fetch(collection, ids, middle, to, into);
        return;
      }
      throw asOwnFailure(e, field, from);
    }
    for (StoredDocument document : documents) {
      into.add(
          new RerankCore.Candidate(
              document.getId(), candidateText(document.getTitle(), document.getText())));
    }
  }

  /** An index-service failure as this request's: its field renamed, its code kept. */
  private static RuntimeException asOwnFailure(StatusRuntimeException e, String field, int offset) {
    String message =
        "the index service answered "
            + e.getStatus().getCode()
            + ": "
            + (e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription());
    String own = ownField(field, offset);
    return switch (e.getStatus().getCode()) {
      case NOT_FOUND -> new NotFoundException(own, message);
      case FAILED_PRECONDITION -> new PreconditionException(own, message);
      case INVALID_ARGUMENT -> new InvalidInputException(own, message);
      default -> new UnavailableException(message);
    };
  }

  /**
   * {@code collection} → {@code index_documents.collection}; {@code ids[3]} of a call → the
   * request's.
   */
  private static String ownField(String field, int offset) {
    if (field == null || field.isEmpty()) {
      return "index_documents";
    }
    if (field.startsWith("ids[") && field.endsWith("]")) {
      try {
        int i = Integer.parseInt(field.substring(4, field.length() - 1));
        return "index_documents.ids[" + (offset + i) + "]";
      } catch (NumberFormatException notAnIndex) {
        return "index_documents.ids";
      }
    }
    return "index_documents." + field;
  }
}
