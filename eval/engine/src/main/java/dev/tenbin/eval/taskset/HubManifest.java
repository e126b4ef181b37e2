package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code resolved.json}, written next to a downloaded hub dataset snapshot: what was asked for,
 * what it resolved to, and what was downloaded. With it, a snapshot pinned by commit SHA loads
 * without asking the hub anything.
 *
 * @param repository {@code owner/name}
 * @param revision the revision last asked for (branch, tag or SHA)
 * @param sha the commit it resolved to
 * @param siblings every file of the repository at that commit
 * @param files the downloaded files and their sizes in bytes
 * @param downloadedAt when the last file was downloaded (ISO-8601)
 */
record HubManifest(
    String repository,
    String revision,
    String sha,
    List<String> siblings,
    Map<String, Long> files,
    @JsonProperty("downloaded_at") String downloadedAt) {

  static final String FILE_NAME = "resolved.json";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  HubManifest {
    siblings = siblings == null ? List.of() : List.copyOf(siblings);
    files = files == null ? new TreeMap<>() : new TreeMap<>(files);
    downloadedAt = downloadedAt == null ? "" : downloadedAt;
  }

  /** The manifest in {@code snapshot}, or null when there is none. */
  static HubManifest read(Path snapshot) {
    Path file = snapshot.resolve(FILE_NAME);
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try {
      return JSON.readValue(file.toFile(), HubManifest.class);
    } catch (IOException e) {
      return null; // a damaged manifest is rebuilt from the hub
    }
  }

  /** Writes the manifest into {@code snapshot}, whole or not at all. */
  void write(Path snapshot) {
    try {
      Files.createDirectories(snapshot);
      Path partial = Files.createTempFile(snapshot, FILE_NAME, ".part");
      JSON.writeValue(partial.toFile(), this);
      Files.move(
          partial,
          snapshot.resolve(FILE_NAME),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + snapshot.resolve(FILE_NAME), e);
    }
  }
}
