package dev.tenbin.client.rerank;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.Pages;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankResponse;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import io.grpc.Channel;
import java.time.Duration;
import java.util.List;

/**
 * The Java client of the rerank service's v1 contract: every call has a deadline and is retried
 * after UNAVAILABLE (reranking reads only). To spread calls over replicas give it a channel from
 * {@code ClientChannels.open(ServiceTarget.parse(flag, "dns:///..."), ...)}; TLS and bearer tokens
 * are the channel's.
 */
public final class RerankClient {
  /** The deadline of {@link #of}: a first call may load a cross-encoder. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(10);

  private final Channel channel;
  private final CallPolicy policy;

  public RerankClient(Channel channel, CallPolicy policy) {
    this.channel = channel;
    this.policy = policy;
  }

  /** A client with the default deadline and four attempts. */
  public static RerankClient of(Channel channel) {
    return new RerankClient(channel, new CallPolicy(DEFAULT_DEADLINE, 4));
  }

  /** The same client with another per-call deadline. */
  public RerankClient withDeadline(Duration deadline) {
    return new RerankClient(channel, policy.withDeadline(deadline));
  }

  private RerankServiceGrpc.RerankServiceBlockingStub stub() {
    return policy.deadlined(RerankServiceGrpc.newBlockingStub(channel));
  }

  public RerankResponse rerank(RerankRequest request) {
    return policy.retrying(() -> stub().rerank(request));
  }

  public RerankerInfo rerankerInfo(String modelId) {
    return policy
        .retrying(
            () ->
                stub()
                    .getRerankerInfo(
                        GetRerankerInfoRequest.newBuilder().setModelId(modelId).build()))
        .getInfo();
  }

  /** Every reranker the service lists, in its order. */
  public List<RerankerInfo> listRerankers() {
    return Pages.all(
        token -> {
          var page =
              policy.retrying(
                  () ->
                      stub()
                          .listRerankers(
                              ListRerankersRequest.newBuilder().setPageToken(token).build()));
          return new Pages.Page<>(page.getRerankersList(), page.getNextPageToken());
        });
  }
}
