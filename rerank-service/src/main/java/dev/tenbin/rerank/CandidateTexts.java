package dev.tenbin.rerank;

import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.UnavailableException;
import java.util.List;

/**
 * Where the text of candidates given by id comes from ({@code RerankRequest.index_documents}): an
 * index-service collection in a served rerank service ({@code documents.IndexDocuments}), none when
 * the service has no index to ask.
 */
@FunctionalInterface
public interface CandidateTexts {
  /**
   * The candidates of {@code ids} in {@code collection}, in the order of {@code ids}.
   *
   * @throws PreconditionException naming {@code index_documents} when there is nothing to fetch
   *     from, or {@code index_documents.collection} when the collection stores no text
   * @throws NotFoundException naming {@code index_documents.collection} or {@code
   *     index_documents.ids[i]}
   * @throws UnavailableException when the source cannot be reached
   */
  List<RerankCore.Candidate> fetch(String collection, List<String> ids);

  /**
   * The candidates of {@code ids} in {@code collection} split into {@code shards} shards of {@code
   * replicas} replicas each (both at least 1), in the order of {@code ids}; one collection of one
   * copy is {@link #fetch(String, List)}.
   *
   * @throws PreconditionException naming {@code index_documents.shards} when this source reads only
   *     single collections and the collection has several shards or replicas
   */
  default List<RerankCore.Candidate> fetch(
      String collection, int shards, int replicas, List<String> ids) {
    if (shards == 1 && replicas == 1) {
      return fetch(collection, ids);
    }
    throw new PreconditionException(
        "index_documents.shards", "this source of candidates reads only unsharded collections");
  }

  /** No index service configured: every request by id is FAILED_PRECONDITION. */
  static CandidateTexts none() {
    return new CandidateTexts() {
      @Override
      public List<RerankCore.Candidate> fetch(String collection, List<String> ids) {
        throw new PreconditionException(
            "index_documents",
            "this rerank service has no index service to fetch documents from (start it with"
                + " --index-endpoint); send the candidates' text inline instead");
      }

      @Override
      public List<RerankCore.Candidate> fetch(
          String collection, int shards, int replicas, List<String> ids) {
        return fetch(collection, ids);
      }
    };
  }
}
