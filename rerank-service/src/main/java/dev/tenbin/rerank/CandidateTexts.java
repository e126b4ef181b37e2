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

  /** No index service configured: every request by id is FAILED_PRECONDITION. */
  static CandidateTexts none() {
    return (collection, ids) -> {
      throw new PreconditionException(
          "index_documents",
          "this rerank service has no index service to fetch documents from (start it with"
              + " --index-endpoint); send the candidates' text inline instead");
    };
  }
}
