package dev.tenbin.eval.candidates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.scoring.beir.DatasetException;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A fixed candidate set for reranking, stored as a versioned JSON-lines file: a header line saying
 * how it was built (dataset fingerprint, kind, models, depths, RRF k), then one line per query with
 * its ranked candidates, each with its ranks in the source lists.
 */
public record CandidateSet(ObjectNode header, List<QueryCandidates> queries) {
  public static final int FORMAT_VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  public String kind() {
    return header.path("kind").asText();
  }

  /**
   * Where a dataset's candidate sets go when no folder is named: {@code DIR/candidates} when the
   * dataset already has that folder (sets kept beside their dataset), else {@code
   * CACHE/candidates/NAME-HASH}, NAME the dataset folder's name and HASH the first 12 hex digits of
   * the SHA-256 of its absolute, normalized path, so building sets never writes into a dataset
   * folder (a checked-in sample stays clean) and two datasets with one name never share sets.
   */
  public static Path defaultDirectory(Path dataset, Path cacheDirectory) {
    Path beside = dataset.resolve("candidates");
    if (Files.isDirectory(beside)) {
      return beside;
    }
    Path absolute = dataset.toAbsolutePath().normalize();
    String name = absolute.getFileName() == null ? "root" : absolute.getFileName().toString();
    return cacheDirectory.resolve("candidates").resolve(name + "-" + pathHash(absolute));
  }

  private static String pathHash(Path absolute) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(absolute.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  public static Path file(Path directory, String kind) {
    return directory.resolve("candidates-" + kind + "-v" + FORMAT_VERSION + ".jsonl");
  }

  public void write(Path file) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      try (BufferedWriter out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        out.write(JSON.writeValueAsString(header));
        out.newLine();
        for (QueryCandidates query : queries) {
          ObjectNode line = JSON.createObjectNode();
          line.put("qid", query.queryId());
          ArrayNode top = line.putArray("candidates");
          for (Candidate candidate : query.top()) {
            top.add(node(candidate));
          }
          if (query.safeguard() != null) {
            line.set("safeguard", node(query.safeguard()));
          }
          out.write(JSON.writeValueAsString(line));
          out.newLine();
        }
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write candidate set " + file, e);
    }
  }

  public static CandidateSet read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new DatasetException(
          "no candidate set at " + file + "; build it with: tenbin candidates build --dataset DIR");
    }
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      ObjectNode header = (ObjectNode) JSON.readTree(in.readLine());
      if (header.path("format_version").asInt() != FORMAT_VERSION) {
        throw new DatasetException(
            file + ": unsupported candidate set version " + header.path("format_version"));
      }
      List<QueryCandidates> queries = new ArrayList<>();
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode node = JSON.readTree(line);
        List<Candidate> top = new ArrayList<>();
        for (JsonNode candidate : node.path("candidates")) {
          top.add(candidate(candidate));
        }
        queries.add(
            new QueryCandidates(
                node.path("qid").asText(),
                top,
                node.has("safeguard") ? candidate(node.get("safeguard")) : null));
      }
      return new CandidateSet(header, queries);
    } catch (IOException | ClassCastException | NullPointerException e) {
      throw new DatasetException("corrupt candidate set " + file + ": " + e.getMessage());
    }
  }

  private static ObjectNode node(Candidate candidate) {
    ObjectNode node = JSON.createObjectNode();
    node.put("doc", candidate.docId());
    node.put("rank", candidate.rank());
    node.put("bm25_rank", candidate.bm25Rank());
    node.put("dense_rank", candidate.denseRank());
    return node;
  }

  private static Candidate candidate(JsonNode node) {
    return new Candidate(
        node.path("doc").asText(),
        node.path("rank").asInt(),
        node.path("bm25_rank").asInt(),
        node.path("dense_rank").asInt());
  }
}
