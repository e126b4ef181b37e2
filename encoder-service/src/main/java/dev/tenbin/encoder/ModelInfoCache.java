package dev.tenbin.encoder;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.encoder.model.ModelCard;
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

/**
 * What GetModelInfo answered for a model, remembered in the cache folder so that a later process
 * can answer it without loading the model (reading its graph from a jar, hashing its files and
 * opening an ONNX session cost about a second a model; planning a job whose cells are all stored
 * needs only the answer).
 *
 * <p>An entry is found by the model id and the model's <em>stamp</em>: the path, size and
 * modification time of every file the model is read from ({@link
 * dev.tenbin.encoder.model.ModelRegistry#stamp}), taken before the files are read. Files that
 * change change the stamp, and the model is loaded again; a model without a stamp (a hub model) is
 * always loaded. An entry that cannot be read is ignored. Entries are written under a name of their
 * own and moved into place, so processes sharing the folder never read half an entry.
 *
 * <p>Layout: {@code <cache>/model-info/<sha256(format, id, stamp)>.json} holding the id, the stamp,
 * the card, the output's dtype and the files' SHA-256.
 */
final class ModelInfoCache {
  /** Bump when the stored form or the meaning of a stamp changes. */
  private static final String FORMAT = "tenbin-model-info-v1";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Path folder;

  /**
   * @param cacheDirectory the service's cache folder
   */
  ModelInfoCache(Path cacheDirectory) {
    this.folder = cacheDirectory.resolve("model-info");
  }

  /** The remembered answer for {@code id} with these files, if any. */
  Optional<EncoderCore.ModelInfo> find(String id, Optional<String> stamp) {
    if (stamp.isEmpty()) {
      return Optional.empty();
    }
    Path file = file(id, stamp.get());
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      JsonNode root = JSON.readTree(file.toFile());
      if (!FORMAT.equals(root.path("format").asText())
          || !id.equals(root.path("id").asText())
          || !stamp.get().equals(root.path("stamp").asText())) {
        return Optional.empty();
      }
      ModelCard card = JSON.treeToValue(root.path("card"), ModelCard.class);
      String dtype = root.path("dtype").asText("");
      String sha = root.path("model_sha256").asText("");
      if (card == null || sha.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new EncoderCore.ModelInfo(card, dtype, sha));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Remembers the answer for {@code id} loaded from files with this stamp (taken before they were
   * read). A folder that cannot be written only means the next process loads the model again.
   */
  void remember(String id, Optional<String> stamp, EncoderCore.ModelInfo info) {
    if (stamp.isEmpty()) {
      return;
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("id", id);
    root.put("stamp", stamp.get());
    root.set("card", JSON.valueToTree(info.card()));
    root.put("dtype", info.dtype());
    root.put("model_sha256", info.modelSha256());
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
    } catch (IOException e) {
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
      for (String part : new String[] {FORMAT, id, stamp}) {
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
