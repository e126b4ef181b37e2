package dev.tenbin.index.collection;

/**
 * What committing one batch did.
 *
 * @param batchDocuments documents in the batch
 * @param alreadyCommitted of those, documents already committed with identical content (left as
 *     they were)
 * @param documentCount documents in the collection after the batch
 * @param lastDocumentId id of the batch's last document ("" for an empty batch)
 */
public record IngestResult(
    int batchDocuments, int alreadyCommitted, long documentCount, String lastDocumentId) {}
