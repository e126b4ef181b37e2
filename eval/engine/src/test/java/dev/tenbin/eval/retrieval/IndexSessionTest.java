package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.CreateCollectionResponse;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.DropCollectionResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** An evaluation's collection is dropped at the end even across a short index outage. */
class IndexSessionTest {

  /** An index whose first drops fail with {@code failures}, in order, then succeed. */
  private static final class FlakyIndex extends IndexServiceGrpc.IndexServiceImplBase {
    final List<Status> failures;
    final List<String> drops = new ArrayList<>();

    FlakyIndex(List<Status> failures) {
      this.failures = new ArrayList<>(failures);
    }

    @Override
    public void createCollection(
        CreateCollectionRequest request, StreamObserver<CreateCollectionResponse> response) {
      response.onNext(CreateCollectionResponse.getDefaultInstance());
      response.onCompleted();
    }

    @Override
    public synchronized void dropCollection(
        DropCollectionRequest request, StreamObserver<DropCollectionResponse> response) {
      drops.add(request.getName());
      if (!failures.isEmpty()) {
        response.onError(failures.removeFirst().asRuntimeException());
        return;
      }
      response.onNext(DropCollectionResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  private static List<String> dropsAfter(List<Status> failures) throws Exception {
    String name = "index-" + UUID.randomUUID();
    FlakyIndex index = new FlakyIndex(failures);
    Server server = InProcessServerBuilder.forName(name).addService(index).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    try {
      new IndexSession(IndexClient.of(channel), IndexSession.Shape.bm25("en", null)).close();
      return index.drops;
    } finally {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void aDropThatMeetsAnUnavailableIndexIsTriedAgain() throws Exception {
    List<String> drops = dropsAfter(List.of(Status.UNAVAILABLE));
    assertThat(drops).hasSize(2).allMatch(n -> n.startsWith("eval-"));
  }

  @Test
  void aDropWhoseAnswerWasLostCountsAsDoneWhenTheCollectionIsGone() throws Exception {
    assertThat(dropsAfter(List.of(Status.UNAVAILABLE, Status.NOT_FOUND))).hasSize(2);
  }

  @Test
  void otherRefusalsAreNotRetried() throws Exception {
    assertThat(dropsAfter(List.of(Status.PERMISSION_DENIED))).hasSize(1);
  }
}
