package dev.tenbin.model.onnx;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps ONNX Runtime's native libraries in one folder per release instead of a new temporary folder
 * per process.
 *
 * <p>Left to itself, ONNX Runtime's Java binding copies its libraries out of its jar into a new
 * {@code onnxruntime-java*} folder under {@code java.io.tmpdir} every time a JVM loads it (28 MB on
 * the CPU build; the CUDA build's provider library is far larger), and release 1.29 leaves that
 * folder behind, empty, when the process ends: one more per run, for ever. Before the first use of
 * ONNX Runtime, {@link #prepare} copies the libraries of this platform once into {@code
 * <cache>/onnxruntime-<digest>/} (the digest is of the jar's library entries: names, sizes and
 * CRCs, so another release gets another folder) and points ONNX Runtime's own {@code
 * onnxruntime.native.path} property at it; its temporary folder then stays empty and is deleted at
 * once. A library already there is used when its size and CRC match the jar's, and copied again
 * otherwise; copies are written under a name of their own and renamed into place, so processes
 * starting at once never load half a file.
 *
 * <p>The cache is {@code -Dtenbin.native.dir} when given, else {@code
 * $XDG_CACHE_HOME/tenbin/native}, else {@code ~/.cache/tenbin/native} (where DJL keeps its
 * tokenizer library too). When the user has set {@code onnxruntime.native.path} already, when ONNX
 * Runtime does not come from a jar, or when the cache cannot be written (a read-only home in a
 * container), nothing changes and ONNX Runtime loads as it always did; a debug line says why.
 */
public final class OnnxNativeLibraries {
  private static final Logger log = LoggerFactory.getLogger(OnnxNativeLibraries.class);
  static final String NATIVE_PATH_PROPERTY = "onnxruntime.native.path";
  static final String CACHE_PROPERTY = "tenbin.native.dir";
  private static final String ORT_JAR_CLASS = "ai.onnxruntime.OrtEnvironment";

  private static boolean prepared;

  private OnnxNativeLibraries() {}

  /**
   * Points ONNX Runtime at the cached copy of its libraries, copying them there first if needed;
   * call before anything loads ONNX Runtime. Does nothing after the first call.
   */
  public static synchronized void prepare() {
    if (prepared) {
      return;
    }
    prepared = true;
    if (System.getProperty(NATIVE_PATH_PROPERTY) != null) {
      log.debug("{} is set; ONNX Runtime loads its libraries from there", NATIVE_PATH_PROPERTY);
      return;
    }
    Optional<Path> jar = ortJar();
    Optional<Path> cache = cacheDirectory();
    if (jar.isEmpty() || cache.isEmpty()) {
      log.debug("ONNX Runtime copies its libraries to a temporary folder (no jar or no cache)");
      return;
    }
    try {
      Optional<Path> folder = extract(jar.get(), platform(), cache.get());
      folder.ifPresent(dir -> System.setProperty(NATIVE_PATH_PROPERTY, dir.toString()));
    } catch (IOException | RuntimeException e) {
      log.debug("cannot keep ONNX Runtime's libraries in {}: {}", cache.get(), e.toString());
    }
  }

  /**
   * Copies the libraries of {@code platform} (e.g. {@code linux-x64}) in jar {@code jar} into a
   * folder of {@code cache} named by their digest, unless there already, and returns that folder;
   * empty when the jar holds no library for the platform.
   */
  static Optional<Path> extract(Path jar, String platform, Path cache) throws IOException {
    String prefix = "ai/onnxruntime/native/" + platform + "/";
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      List<ZipEntry> libraries =
          zip.stream()
              .map(ZipEntry.class::cast)
              .filter(entry -> !entry.isDirectory() && entry.getName().startsWith(prefix))
              .filter(entry -> entry.getName().indexOf('/', prefix.length()) < 0)
              .sorted(Comparator.comparing(ZipEntry::getName))
              .toList();
      if (libraries.isEmpty()) {
        return Optional.empty();
      }
      Path folder = cache.resolve("onnxruntime-" + digest(libraries));
      Files.createDirectories(folder);
      for (ZipEntry entry : libraries) {
        Path target = folder.resolve(entry.getName().substring(prefix.length()));
        if (!matches(target, entry)) {
          Path partial =
              folder.resolve(
                  target.getFileName() + "." + ProcessHandle.current().pid() + ".partial");
          try (InputStream in = zip.getInputStream(entry)) {
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
          }
          Files.move(
              partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
      }
      return Optional.of(folder);
    }
  }

  /** Whether {@code file} holds exactly the entry's bytes (same size, same CRC-32). */
  private static boolean matches(Path file, ZipEntry entry) throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) != entry.getSize()) {
      return false;
    }
    CRC32 crc = new CRC32();
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        crc.update(buffer, 0, read);
      }
    }
    return crc.getValue() == entry.getCrc();
  }

  /** The first 16 hex digits of SHA-256 over the entries' names, sizes and CRCs. */
  private static String digest(List<ZipEntry> libraries) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (ZipEntry entry : libraries) {
        sha.update(
            (entry.getName() + "\t" + entry.getSize() + "\t" + entry.getCrc() + "\n")
                .getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The jar ONNX Runtime's classes come from, when they come from one. */
  private static Optional<Path> ortJar() {
    try {
      // Not initialised: its static initialiser is what loads the libraries.
      var source =
          Class.forName(ORT_JAR_CLASS, false, OnnxNativeLibraries.class.getClassLoader())
              .getProtectionDomain()
              .getCodeSource();
      if (source == null) {
        return Optional.empty();
      }
      Path path = Path.of(source.getLocation().toURI());
      return Files.isRegularFile(path) ? Optional.of(path) : Optional.empty();
    } catch (ClassNotFoundException | URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Where the libraries are kept, or empty when no such folder can be named. */
  static Optional<Path> cacheDirectory() {
    String configured = System.getProperty(CACHE_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured));
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Optional.of(Path.of(xdg, "tenbin", "native"));
    }
    String home = System.getProperty("user.home");
    if (home == null || home.isBlank() || home.equals("?")) {
      return Optional.empty();
    }
    return Optional.of(Path.of(home, ".cache", "tenbin", "native"));
  }

  /** ONNX Runtime's name for this platform's folder in its jar, e.g. {@code linux-x64}. */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String osName =
        os.contains("mac") || os.contains("darwin")
            ? "osx"
            : os.contains("win") ? "win" : os.contains("nux") ? "linux" : os;
    String archName =
        arch.equals("amd64") || arch.equals("x86_64")
            ? "x64"
            : arch.equals("arm64") ? "aarch64" : arch;
    return osName + "-" + archName;
  }
}
