package dev.tenbin.client.index;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.Pages;
import dev.tenbin.proto.index.v1.CollectionDescription;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.CreateCollectionResponse;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.FuseResponse;
import dev.tenbin.proto.index.v1.GetCollectionDigestRequest;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.RescoreResponse;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import io.grpc.Channel;
import io.grpc.Deadline;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Java client of the index service's v1 contract. Every call has a deadline; reads (search,
 * rescore, fuse, documents, descriptions, language) are retried after UNAVAILABLE, and a search
 * stream resumes itself; creating and dropping a collection are not (a second run would be
 * refused), nor is an ingest stream (its caller resumes it from the first unacknowledged batch).
 * Listing reads every page.
 *
 * <p>It calls through any channel: one from {@code ClientChannels.open(ServiceTarget,
 * ClientSecurity, ...)} (TLS, bearer token), the pods of an index StatefulSet ({@code
 * ClientChannels.openPods}: each call goes to the pod holding its collection), or an in-process
 * channel to an embedded service.
 */
public final class IndexClient {
  /** The deadline of {@link #of}: long enough for a search of many queries on a big collection. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(10);

  private final Channel channel;
  private final CallPolicy policy;

  public IndexClient(Channel channel, CallPolicy policy) {
    this.channel = channel;
    this.policy = policy;
  }

  /** A client with the default deadline and four attempts. */
  public static IndexClient of(Channel channel) {
    return new IndexClient(channel, new CallPolicy(DEFAULT_DEADLINE, 4));
  }

  /** The same client with another per-call deadline. */
  public IndexClient withDeadline(Duration deadline) {
    return new IndexClient(channel, policy.withDeadline(deadline));
  }

  /** The same client calling with {@code value} (deadline and attempts) instead. */
  public IndexClient withPolicy(CallPolicy value) {
    return new IndexClient(channel, value);
  }

  private IndexServiceGrpc.IndexServiceBlockingStub stub() {
    return policy.deadlined(IndexServiceGrpc.newBlockingStub(channel));
  }

  public CreateCollectionResponse createCollection(CreateCollectionRequest request) {
    return stub().createCollection(request);
  }

  public CollectionDescription describeCollection(String name) {
    return policy
        .retrying(
            () ->
                stub()
                    .describeCollection(
                        DescribeCollectionRequest.newBuilder().setName(name).build()))
        .getCollection();
  }

  /** Every collection, sorted by name. */
  public List<CollectionDescription> listCollections() {
    return Pages.all(
        token -> {
          var page =
              policy.retrying(
                  () ->
                      stub()
                          .listCollections(
                              ListCollectionsRequest.newBuilder().setPageToken(token).build()));
          return new Pages.Page<>(page.getCollectionsList(), page.getNextPageToken());
        });
  }

  public void dropCollection(String name) {
    stub().dropCollection(DropCollectionRequest.newBuilder().setName(name).build());
  }

  public ResolveLanguageResponse resolveLanguage(ResolveLanguageRequest request) {
    return policy.retrying(() -> stub().resolveLanguage(request));
  }

  public SearchResponse search(SearchRequest request) {
    return policy.retrying(() -> stub().search(request));
  }

  /**
   * Opens a search stream whose deadline is this client's per-call deadline, counted from now: for
   * queries sent one at a time, each answered in order over one call ({@link SearchStream}). A
   * stream handed back with UNAVAILABLE (a service stopping, restarting) is resumed by the stream
   * itself, the unanswered requests sent again. Close it when done.
   */
  public SearchStream searchStream() {
    return searchStream(Deadline.after(policy.deadline().toMillis(), TimeUnit.MILLISECONDS));
  }

  /** {@link #searchStream()} ending at {@code deadline}. */
  public SearchStream searchStream(Deadline deadline) {
    return new SearchStream(channel, deadline);
  }

  /** {@link #searchStream(Deadline)} resumed at most {@code maxResumes} times in a row. */
  SearchStream searchStream(Deadline deadline, int maxResumes) {
    return new SearchStream(channel, deadline, maxResumes);
  }

  public RescoreResponse rescore(RescoreRequest request) {
    return policy.retrying(() -> stub().rescore(request));
  }

  public FuseResponse fuse(FuseRequest request) {
    return policy.retrying(() -> stub().fuse(request));
  }

  public GetDocumentsResponse getDocuments(GetDocumentsRequest request) {
    return policy.retrying(() -> stub().getDocuments(request));
  }

  /** The BM25 statistics of a collection and of some texts' analysed terms (retried: a read). */
  public dev.tenbin.proto.index.v1.Bm25Statistics termStatistics(
      String collection, List<String> texts) {
    var request =
        dev.tenbin.proto.index.v1.GetTermStatisticsRequest.newBuilder()
            .setCollection(collection)
            .addAllTexts(texts)
            .build();
    return policy.retrying(() -> stub().getTermStatistics(request)).getStatistics();
  }

  /**
   * A collection's own int8 ranges for the dense variant (similarity, truncation) of {@code dense},
   * with the documents they cover (retried: a read).
   */
  public dev.tenbin.proto.index.v1.GetInt8CalibrationResponse int8Calibration(
      String collection, dev.tenbin.proto.index.v1.DenseOptions dense) {
    var request =
        dev.tenbin.proto.index.v1.GetInt8CalibrationRequest.newBuilder()
            .setCollection(collection)
            .setDense(dense)
            .build();
    return policy.retrying(() -> stub().getInt8Calibration(request));
  }

  /**
   * The digest of a collection's content and the documents it covers ({@code GetCollectionDigest};
   * retried: a read).
   */
  public GetCollectionDigestResponse collectionDigest(String collection) {
    var request = GetCollectionDigestRequest.newBuilder().setCollection(collection).build();
    return policy.retrying(() -> stub().getCollectionDigest(request));
  }

  /**
   * A collection's documents in id order, page by page, as {@code Ingest} takes them ({@code
   * ExportDocuments}), the call ending at {@code deadline}. Each page is asked for as the iterator
   * is read (flow control: the service makes no page ahead of the reader). Not retried: a caller
   * whose export fails starts again. Read it to the end, or run it in a {@link
   * io.grpc.Context.CancellableContext} cancelled once done, so that the call ends.
   *
   * @param pageSize documents per page, 0 for the service's default
   */
  public Iterator<ExportDocumentsResponse> exportDocuments(
      String collection, int pageSize, Deadline deadline) {
    return IndexServiceGrpc.newBlockingStub(channel)
        .withDeadline(deadline)
        .exportDocuments(
            ExportDocumentsRequest.newBuilder()
                .setCollection(collection)
                .setPageSize(pageSize)
                .build());
  }

  /**
   * Opens an ingest stream ending at {@code deadline}: send batches on the returned stream as it is
   * ready (flow control), acknowledgements come to {@code responses} in the order of the batches.
   * Not retried: an interrupted ingest is resumed by the caller from the first unacknowledged
   * batch. A stopping index service (a rolling update's SIGTERM) ends the stream with UNAVAILABLE
   * and a {@code RetryInfo} right after acknowledging the batch it was committing, and applies
   * nothing sent after it: resume then, on another replica or once the service has restarted
   * ({@link dev.tenbin.client.CallPolicy} has the contract).
   */
  public ClientCallStreamObserver<IngestRequest> ingest(
      Deadline deadline, ClientResponseObserver<IngestRequest, IngestResponse> responses) {
    return (ClientCallStreamObserver<IngestRequest>)
        IndexServiceGrpc.newStub(channel).withDeadline(deadline).ingest(responses);
  }
}
