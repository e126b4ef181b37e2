package dev.tenbin.model;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * What a service answered about a model once it had loaded it (its card, output dtype and files
 * hash), remembered in the cache folder so that a later process can answer the same without loading
 * the model: reading a graph, hashing its files and opening an ONNX session cost a second or more a
 * model (a large cross-encoder's gigabyte of weights far more), and planning a job whose cells are
 * all stored needs only the answer. The encoder remembers its models' {@code GetModelInfo} answers,
 * the rerank service its cross-encoders' {@code GetRerankerInfo} answers; each is its own {@code
 * kind}, so the two never read each other's entries.
 *
 * <p>An entry is found by the kind, the model id and the model's <em>stamp</em> ({@link
 * FileStamps}): the path, size and modification time of every file the model is read from, taken
 * before the files are read. Files that change change the stamp, and the model is loaded again; a
 * model without a stamp (a hub model, files modified moments ago) is always loaded. An entry that
 * cannot be read, or whose answer the owner finds unusable, is ignored. Entries are written under a
 * name of their own and moved into place, so processes sharing the folder never read half an entry;
 * a folder that cannot be written only means the next process loads the model again.
 *
 * <p>Layout: {@code <cache>/model-info/<sha256(format, kind, id, stamp)>.json} holding the format,
 * kind, id and stamp, and the answer under {@code info} (the record {@code T} as Jackson writes
 * it).
 *
 * @param <T> the answer: a record Jackson reads back as it wrote it
 */
public final class ModelInfoCache<T> {
  /**
   * Bump when the stored form or the meaning of a stamp changes. (v1, the encoder's alone, stored
   * the answer's fields beside the id; its entries are no longer read.)
   */
  private static final String FORMAT = "tenbin-model-info-v2";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Path folder;
  private final String kind;
  private final Class<T> type;
  private final Predicate<T> usable;

  /**
   * @param cacheDirectory the service's cache folder (entries go to its {@code model-info/})
   * @param kind what answers this cache holds ({@code encoder}, {@code reranker}): part of the key
   * @param type the answer's class
   * @param usable whether an answer read back is complete enough to give (else the model is loaded)
   */
  public ModelInfoCache(Path cacheDirectory, String kind, Class<T> type, Predicate<T> usable) {
    this.folder = cacheDirectory.resolve("model-info");
    this.kind = kind;
    this.type = type;
    this.usable = usable;
  }

  /** The remembered answer for {@code id} with these files, if any. */
  public Optional<T> find(String id, Optional<String> stamp) {
    if (stamp.isEmpty()) {
      return Optional.empty();
    }
    Path file = file(id, stamp.get());
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      JsonNode root = JSON.readTree(file.toFile());
      if (root == null
          || !FORMAT.equals(root.path("format").asText())
          || !kind.equals(root.path("kind").asText())
          || !id.equals(root.path("id").asText())
          || !stamp.get().equals(root.path("stamp").asText())
          || !root.path("info").isObject()) {
        return Optional.empty();
      }
      T info = JSON.treeToValue(root.path("info"), type);
      return info != null && usable.test(info) ? Optional.of(info) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Remembers the answer for {@code id} loaded from files with this stamp (taken before they were
   * read); nothing without a stamp.
   */
  public void remember(String id, Optional<String> stamp, T info) {
    if (stamp.isEmpty()) {
      return;
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("kind", kind);
    root.put("id", id);
    root.put("stamp", stamp.get());
    root.set("info", JSON.valueToTree(info));
    Path file = file(id, stamp.get());
    Path partial = folder.resolve("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.createDirectories(folder);
      Files.write(partial, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
      try {
        Files.move(
            partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(partial);
      } catch (IOException ignored) {
        // Nothing more to do: the entry is only a shortcut.
      }
    }
  }

  private Path file(String id, String stamp) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {FORMAT, kind, id, stamp}) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update((byte) (bytes.length >>> 24));
        sha.update((byte) (bytes.length >>> 16));
        sha.update((byte) (bytes.length >>> 8));
        sha.update((byte) bytes.length);
        sha.update(bytes);
      }
      return folder.resolve(HexFormat.of().formatHex(sha.digest()) + ".json");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
