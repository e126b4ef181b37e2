package dev.tenbin.eval.services;

import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsRequest;
import dev.tenbin.proto.index.v1.GetCollectionDigestRequest;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetInt8CalibrationRequest;
import dev.tenbin.proto.index.v1.GetTermStatisticsRequest;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServiceEndpoint;
import io.grpc.ManagedChannel;
import java.util.List;
import java.util.function.Function;

/**
 * Where a collection lives when the index runs as several StatefulSet pods: on one pod, chosen by
 * rendezvous hashing of the collection's name over the pods' stable names ({@link
 * dev.tenbin.rpc.Rendezvous}: SHA-256 of {@code host:port}, a zero byte and the name). Every call
 * about a collection (create, ingest, search, search stream, rescore, describe, drop, digest,
 * export) goes to that pod; the stateless calls (resolve a language, fuse rankings) go to the pods
 * in turn. ListCollections has no collection and lists one pod's only: nothing in the orchestrator
 * lists collections.
 *
 * <p>The rerank service given the same pods ({@code --index-pods}, same names) sends its
 * GetDocuments calls by the same placement, so candidates given by id are fetched from the pod that
 * holds their collection.
 *
 * <p>The shards of a sharded collection ({@link ShardedCollection}: {@code NAME.shard-I-of-K}) are
 * placed as the collection {@code NAME}, shard I on the I-th pod of its rendezvous ranking: K
 * shards spread over min(K, pods) pods, each shard always on the same one. Replica J of shard I
 * ({@code NAME.shard-I-of-K.replica-J-of-R}) is on rank I + J: the R replicas of a shard are on R
 * distinct pods while there are at least R pods; with fewer, replicas share pods (the ranks wrap
 * around) and protect against no pod's loss.
 *
 * <p>The pods are fixed for the life of the process, so a collection never moves under a running
 * evaluation; see docs/scaling.md for what scaling the StatefulSet does.
 */
public final class IndexPlacement {
  private IndexPlacement() {}

  /** One channel per pod of {@code pods}, calls routed by collection. */
  public static KeyRoutedChannel open(ServiceEndpoint pods, int maxInboundMessageBytes) {
    return ClientChannels.openRoutedPods(pods, maxInboundMessageBytes, IndexPlacement::routeOf);
  }

  /**
   * Calls routed by collection over {@code pods} (each named {@code host:port}, the name the
   * placement hashes), each pod's channel opened by {@code connect}.
   */
  public static KeyRoutedChannel open(List<String> pods, Function<String, ManagedChannel> connect) {
    return KeyRoutedChannel.openRouted(pods, connect, IndexPlacement::routeOf);
  }

  /**
   * Where a request goes: its collection's pod, a shard's replica by its rank (shard + replica);
   * null for the stateless.
   */
  public static KeyRoutedChannel.Route routeOf(Object request) {
    String collection = collectionOf(request);
    if (collection == null || collection.isEmpty()) {
      return null;
    }
    ShardedCollection.Copy copy = ShardedCollection.Copy.of(collection);
    return new KeyRoutedChannel.Route(copy.collection(), copy.rank());
  }

  /** The collection a request is about, or null for the calls that are about none. */
  public static String collectionOf(Object request) {
    return switch (request) {
      case CreateCollectionRequest create -> create.getSpec().getName();
      case DescribeCollectionRequest describe -> describe.getName();
      case DropCollectionRequest drop -> drop.getName();
      case IngestRequest ingest -> ingest.getCollection();
      case SearchRequest search -> search.getCollection();
      // A search stream searches the collection of its first request (the service holds it to it).
      case SearchStreamRequest stream -> stream.getRequest().getCollection();
      case RescoreRequest rescore -> rescore.getCollection();
      case GetDocumentsRequest documents -> documents.getCollection();
      case GetTermStatisticsRequest statistics -> statistics.getCollection();
      case GetInt8CalibrationRequest calibration -> calibration.getCollection();
      case GetCollectionDigestRequest digest -> digest.getCollection();
      case ExportDocumentsRequest export -> export.getCollection();
      default -> null;
    };
  }
}
