package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.CorpusDocument;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.encoder.v1.EncodeMultiVectorRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import io.grpc.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Late-interaction retrieval: token vectors from the encoder service, exact MaxSim in the index. */
public final class MultiVectorRetrieval {
  private final Channel indexChannel;
  private final Channel encoderChannel;

  public MultiVectorRetrieval(Channel indexChannel, Channel encoderChannel) {
    this.indexChannel = indexChannel;
    this.encoderChannel = encoderChannel;
  }

  public RetrievalResult run(BeirDataset dataset, String model, int topK) {
    var encoder = EncoderServiceGrpc.newBlockingStub(encoderChannel).withDeadlineAfter(2, TimeUnit.HOURS);
    long start = System.nanoTime();
    List<String> texts = dataset.corpus().stream().map(CorpusDocument::titleAndText).toList();
    List<MultiVector> docVectors = new ArrayList<>();
    encoder
        .streamEncodeMultiVector(
            StreamEncodeMultiVectorRequest.newBuilder().setModelId(model).addAllTexts(texts).setRole(InputRole.INPUT_ROLE_DOCUMENT).setChunkSize(32).build())
        .forEachRemaining(chunk -> docVectors.addAll(chunk.getVectorsList()));
    long encoded = System.nanoTime();
    List<String> queryIds = dataset.evaluatedQueryIds();
    List<MultiVector> queryVectors =
        encoder
            .encodeMultiVector(
                EncodeMultiVectorRequest.newBuilder()
                    .setModelId(model)
                    .addAllTexts(queryIds.stream().map(id -> dataset.queries().get(id)).toList())
                    .setRole(InputRole.INPUT_ROLE_QUERY)
                    .build())
            .getVectorsList();
    long queriesEncoded = System.nanoTime();
    int dimension = docVectors.getFirst().getDimension();
    try (IndexSession session = new IndexSession(indexChannel, "en", 0, 0, dimension)) {
      List<Document> documents = new ArrayList<>();
      for (int i = 0; i < texts.size(); i++) {
        CorpusDocument doc = dataset.corpus().get(i);
        documents.add(Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text()).setMultiVector(docVectors.get(i)).build());
      }
      session.ingest(documents);
      long indexed = System.nanoTime();
      List<Query> queries = new ArrayList<>();
      for (int i = 0; i < queryIds.size(); i++) {
        queries.add(Query.newBuilder().setId(queryIds.get(i)).setMultiVector(queryVectors.get(i)).build());
      }
      var rankings = session.search(Family.FAMILY_MULTIVECTOR, queries, null, topK);
      return new RetrievalResult(
          rankings, indexed - start, System.nanoTime() - indexed, texts.size(), encoded - start, queriesEncoded - encoded,
          Map.of("bytes_per_token", 4L * dimension));
    }
  }
}
