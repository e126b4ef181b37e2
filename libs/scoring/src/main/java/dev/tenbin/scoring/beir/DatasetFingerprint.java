package dev.tenbin.scoring.beir;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * SHA-256 over a BEIR folder's corpus file (as stored: a gzipped corpus hashes its gzip bytes),
 * queries and qrels, in that order, then its span qrels where it has them: the dataset's identity.
 * A folder without {@code qrels/spans.tsv} keeps the identity it had before spans were read.
 * Another split than {@code test} hashes its own qrels and, after them, its name (the default split
 * keeps the identity it always had).
 */
public final class DatasetFingerprint {
  private DatasetFingerprint() {}

  public static String of(Path directory) {
    return of(directory, BeirDatasetReader.DEFAULT_SPLIT);
  }

  /** The identity of the folder read with the qrels of {@code split}. */
  public static String of(Path directory, String split) {
    boolean defaultSplit = split.equals(BeirDatasetReader.DEFAULT_SPLIT);
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      List<Path> files = new ArrayList<>();
      files.add(BeirDatasetReader.corpusFile(directory));
      files.add(directory.resolve("queries.jsonl"));
      files.add(BeirDatasetReader.qrelsFile(directory, split));
      Path spans = directory.resolve("qrels").resolve(BeirDatasetReader.SPANS_FILE);
      if (defaultSplit && Files.isRegularFile(spans)) {
        files.add(spans);
      }
      for (Path file : files) {
        try (InputStream in = Files.newInputStream(file)) {
          byte[] buffer = new byte[1 << 16];
          int read;
          while ((read = in.read(buffer)) > 0) {
            digest.update(buffer, 0, read);
          }
        }
      }
      if (!defaultSplit) {
        digest.update(("\nsplit=" + split).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
