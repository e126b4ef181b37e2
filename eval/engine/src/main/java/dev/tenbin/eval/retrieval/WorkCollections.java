package dev.tenbin.eval.retrieval;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * The index collections of one work item of a job: the key their names are made from, and where the
 * lines saying how their ingest resumed go. A job binds it ({@link #CURRENT}, in the gRPC context
 * of the work item's calls) while a work item runs; an {@link IndexSession} opened meanwhile for
 * content it can name is then named from the work key and that content instead of at random, so the
 * same work item run again after its process was killed finds the collection it was filling, and
 * keeps the corpus slices it had committed. The binding travels with the work item's thread rather
 * than through every retrieval class, because the key is the job's concern, not the retrieval's.
 *
 * @param workKey what identifies the work item: its job (a key kept in the job folder, so two jobs
 *     never share it) and the work item within the job (its family, task, model and cells)
 * @param notes where the lines about a resumed ingest go (the job's {@code work_note} events)
 */
public record WorkCollections(String workKey, Consumer<String> notes) {
  /**
   * The work item running on this thread, while a job runs one: a value of the gRPC context the job
   * attaches to the work item's calls.
   */
  public static final io.grpc.Context.Key<WorkCollections> CURRENT =
      io.grpc.Context.key("tenbin-work-collections");

  /** Hex digits of the name's SHA-256 digest (128 bits: no two contents share a name). */
  private static final int NAME_HEX = 32;

  /**
   * The name of the work item's collection holding {@code content}: "eval-" and the leading {@value
   * #NAME_HEX} hex digits of the SHA-256 of the work key and the content. Two work items, or two
   * collections of one work item with different content, get different names; the same work item
   * run again gets the same name for the same content.
   *
   * @param content everything that decides what the collection holds besides the work item (what is
   *     ingested, the collection's spec, its shards and replicas)
   */
  public String name(String content) {
    return nameOf(workKey, content);
  }

  /** {@link #name} of the work key {@code workKey}. */
  static String nameOf(String workKey, String content) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      // The key's length first: no two (key, content) pairs make the same bytes.
      sha.update(
          (workKey.length() + ":" + workKey + "\n" + content).getBytes(StandardCharsets.UTF_8));
      return "eval-" + HexFormat.of().formatHex(sha.digest()).substring(0, NAME_HEX);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is unavailable", e);
    }
  }
}
