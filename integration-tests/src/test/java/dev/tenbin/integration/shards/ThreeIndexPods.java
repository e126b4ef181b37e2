package dev.tenbin.integration.shards;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.KeyRoutedChannel;
import dev.tenbin.rpc.ServiceTarget;
import io.grpc.Channel;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Three real index servers on loopback under the chart's pod names for a three-pod index
 * StatefulSet (what placement hashes), and a client routing each collection to its pod by
 * placement, as the eval service's is: the fleet the replica tests kill pods of and bring back.
 */
final class ThreeIndexPods implements AutoCloseable {
  static final List<String> POD_NAMES =
      List.of(
          "tenbin-index-0.tenbin-index-headless:50052",
          "tenbin-index-1.tenbin-index-headless:50052",
          "tenbin-index-2.tenbin-index-headless:50052");

  private final List<IndexPod> pods = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final KeyRoutedChannel channel;
  private final IndexClient index;

  /** Starts the pods, each with its data under {@code folder/pod-I}. */
  ThreeIndexPods(Path folder) throws IOException {
    for (int i = 0; i < POD_NAMES.size(); i++) {
      IndexPod pod = new IndexPod(folder.resolve("pod-" + i));
      pods.add(pod);
      ports.add(pod.port());
    }
    channel =
        IndexPlacement.open(
            POD_NAMES,
            pod ->
                ClientChannels.open(
                    ServiceTarget.parse(
                        "--index-pods", "127.0.0.1:" + ports.get(POD_NAMES.indexOf(pod))),
                    ClientSecurity.plaintext(),
                    64 * 1024 * 1024));
    index = IndexClient.of(channel);
  }

  IndexClient index() {
    return index;
  }

  /** The channel routing each collection to its pod, for a client that records its calls. */
  Channel channel() {
    return channel;
  }

  IndexPod pod(int at) {
    return pods.get(at);
  }

  /** The pods, in pod-name order. */
  List<IndexPod> all() {
    return List.copyOf(pods);
  }

  /** The index of the pod of rank {@code rank} in the ranking of {@code collection}. */
  int atRank(String collection, int rank) {
    return POD_NAMES.indexOf(channel.placement().nodeOf(collection, rank));
  }

  /** The pod holding a copy (an index collection) by placement. */
  IndexPod holding(String copy) {
    ShardedCollection.Copy parts = ShardedCollection.Copy.of(copy);
    return pods.get(atRank(parts.collection(), parts.rank()));
  }

  /**
   * Pod {@code at} back at its address after it was killed, serving {@code data}, its requests
   * passed through {@code requests}; the client's connection to it tried again at once.
   */
  IndexPod restart(int at, Path data, UnaryOperator<Object> requests) throws Exception {
    return restart(at, data, requests, null);
  }

  /** As above, every call of the pod first passing through {@code faults} (null: none). */
  IndexPod restart(int at, Path data, UnaryOperator<Object> requests, ServerInterceptor faults)
      throws Exception {
    pods.get(at).close();
    IndexPod back = new IndexPod(data, ports.get(at), requests, faults);
    pods.set(at, back);
    channel.resetConnectBackoff();
    return back;
  }

  @Override
  public void close() throws Exception {
    channel.shutdownNow();
    channel.awaitTermination(10, TimeUnit.SECONDS);
    for (IndexPod pod : pods) {
      pod.close();
    }
  }
}
