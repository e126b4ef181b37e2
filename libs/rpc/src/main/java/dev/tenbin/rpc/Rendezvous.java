package dev.tenbin.rpc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;

/**
 * Rendezvous (highest-random-weight) placement of keys on nodes: a key lives on the node whose
 * weight for it is highest. Adding a node moves only the keys the new node wins (about 1/N of them,
 * all onto the new node); removing one moves only the keys it held. The weight is fixed and
 * documented, so every process and every release places a key on the same node:
 *
 * <pre>
 *   weight(node, key) = first 8 bytes, big-endian unsigned, of SHA-256(UTF-8(node) 0x00 UTF-8(key))
 * </pre>
 *
 * <p>A tie (a SHA-256 collision in 64 bits) goes to the node whose name sorts first. Node names are
 * the stable names of the nodes (a StatefulSet pod's {@code host:port}), never their addresses.
 */
public final class Rendezvous {
  private final List<String> nodes;

  /** Placement over {@code nodes}: at least one, no duplicates, none blank. */
  public Rendezvous(Collection<String> nodes) {
    if (nodes == null || nodes.isEmpty()) {
      throw new IllegalArgumentException("rendezvous placement needs at least one node");
    }
    this.nodes = List.copyOf(nodes);
    if (new HashSet<>(this.nodes).size() != this.nodes.size()) {
      throw new IllegalArgumentException("the nodes must be distinct, got " + this.nodes);
    }
    if (this.nodes.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("a node name must not be blank, got " + this.nodes);
    }
  }

  /** The nodes, in the order given. */
  public List<String> nodes() {
    return nodes;
  }

  /** The node {@code key} lives on. */
  public String nodeOf(String key) {
    String best = null;
    long bestWeight = 0;
    for (String node : nodes) {
      long weight = weight(node, key);
      int order = best == null ? 1 : Long.compareUnsigned(weight, bestWeight);
      if (order > 0 || (order == 0 && node.compareTo(best) < 0)) {
        best = node;
        bestWeight = weight;
      }
    }
    return best;
  }

  /**
   * The node of rank {@code rank} in {@code key}'s {@link #ranking} (modulo the number of nodes):
   * rank 0 is {@link #nodeOf(String)}; ranks 0..n-1 are n distinct nodes.
   */
  public String nodeOf(String key, int rank) {
    return rank == 0 ? nodeOf(key) : ranking(key).get(rank % nodes.size());
  }

  /** The index in {@link #nodes()} of the node {@code key} lives on. */
  public int indexOf(String key) {
    return nodes.indexOf(nodeOf(key));
  }

  /** The nodes ordered by their weight for {@code key}, highest first (its owner first). */
  public List<String> ranking(String key) {
    List<String> ranked = new ArrayList<>(nodes);
    ranked.sort(
        (a, b) -> {
          int order = Long.compareUnsigned(weight(b, key), weight(a, key));
          return order != 0 ? order : a.compareTo(b);
        });
    return ranked;
  }

  /** The weight of {@code node} for {@code key}, as an unsigned 64-bit number. */
  public static long weight(String node, String key) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    sha256.update(node.getBytes(StandardCharsets.UTF_8));
    sha256.update((byte) 0);
    sha256.update(key.getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(sha256.digest()).getLong();
  }
}
