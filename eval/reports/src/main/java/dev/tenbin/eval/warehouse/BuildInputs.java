package dev.tenbin.eval.warehouse;

import dev.tenbin.eval.provenance.TenbinVersion;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a warehouse is built from, as text: the schema (its DDL), this build of Tenbin (version, and
 * the size and time of the jar or class file the warehouse code runs from), and for each job folder
 * in order its absolute path, the SHA-256 of its {@code job.yaml} (or none: the position settings
 * come from there) and the name, size and SHA-256 of every regular file in its {@code cells/}
 * folder. The DuckDB release joins in {@link #digest}. Contents are hashed rather than files
 * stamped by their times, so a cell stored a moment before a build is described as surely as an old
 * one (hashing a job's cells costs a fraction of loading them). {@link #described} is empty when a
 * folder or file cannot be read: such inputs match no record.
 *
 * @param jobDirs the job folders, as given
 * @param described the inputs as text, one item a line; empty when they cannot be read
 */
public record BuildInputs(List<Path> jobDirs, Optional<String> described) {
  /** Bump when what the inputs cover, or how a warehouse is loaded from them, changes. */
  private static final String FORMAT = "tenbin-warehouse-inputs-v1";

  /** The inputs of a warehouse of {@code jobDirs}, as they are now. */
  static BuildInputs of(List<Path> jobDirs) {
    List<Path> dirs = List.copyOf(jobDirs);
    try {
      StringBuilder text = new StringBuilder();
      text.append(FORMAT).append('\n');
      for (WarehouseSchema.Table table : WarehouseSchema.TABLES) {
        text.append(table.ddl()).append('\n');
      }
      for (String view : WarehouseSchema.views()) {
        text.append(view).append('\n');
      }
      text.append("tenbin\t").append(TenbinVersion.get()).append('\n');
      text.append("code\t").append(codeStamp()).append('\n');
      MessageDigest sha = sha256();
      for (Path jobDir : dirs) {
        Path folder = jobDir.toAbsolutePath().normalize();
        text.append("job\t").append(folder).append('\n');
        Path spec = folder.resolve("job.yaml");
        text.append("job.yaml\t")
            .append(Files.isRegularFile(spec) ? hash(sha, spec) : "-")
            .append('\n');
        List<Path> files;
        try (Stream<Path> listing = Files.list(folder.resolve("cells"))) {
          files = listing.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
          text.append("cell file\t")
              .append(file.getFileName())
              .append('\t')
              .append(Files.size(file))
              .append('\t')
              .append(hash(sha, file))
              .append('\n');
        }
      }
      return new BuildInputs(dirs, Optional.of(text.toString()));
    } catch (IOException | RuntimeException e) {
      return new BuildInputs(dirs, Optional.empty());
    }
  }

  /** The record a warehouse built from these inputs with this DuckDB release holds. */
  String digest(String duckDbVersion) {
    String text = described.orElseThrow(() -> new IllegalStateException("unreadable inputs"));
    byte[] all = (text + "duckdb\t" + duckDbVersion + "\n").getBytes(StandardCharsets.UTF_8);
    return HexFormat.of().formatHex(sha256().digest(all));
  }

  /** Size and time of the jar (or, in a build tree, the class file) this code runs from. */
  private static String codeStamp() throws IOException {
    Path location;
    try {
      location =
          Path.of(BuildInputs.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | RuntimeException e) {
      throw new IOException("cannot locate the warehouse code", e);
    }
    Path file =
        Files.isDirectory(location)
            ? location.resolve(BuildInputs.class.getName().replace('.', '/') + ".class")
            : location;
    return file + "\t" + Files.size(file) + "\t" + Files.getLastModifiedTime(file).toInstant();
  }

  private static String hash(MessageDigest sha, Path file) throws IOException {
    sha.reset();
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        sha.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
