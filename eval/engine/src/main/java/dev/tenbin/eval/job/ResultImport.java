package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.scoring.trec.InputFileException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * Results made elsewhere written into a new job folder, for {@link JobManager#importResults}: a
 * TREC run evaluated on a local BEIR folder ({@link #trecRun}), or a whole job folder sent as a zip
 * ({@link #jobArchive}: the archive the eval service's web UI gives for a job, or any zip of a
 * {@code tenbin run} folder).
 *
 * <p>An archive is never trusted: every entry must be a relative path of plain names (no {@code
 * ..}, no absolute path, no backslash, no control character), the whole may unpack to at most
 * {@link #MAX_ARCHIVE_BYTES} bytes in at most {@link #MAX_ARCHIVE_FILES} files, counted as written
 * (not as the entries claim), and only plain files and folders are made, inside the new folder.
 * What it unpacks to must hold stored cells that read back; else the import is refused.
 */
public final class ResultImport {
  /** The most bytes an archive may unpack to. */
  public static final long MAX_ARCHIVE_BYTES = 4L << 30;

  /** The most files an archive may hold. */
  public static final int MAX_ARCHIVE_FILES = 200_000;

  /** Where an imported run file is kept inside its job folder. */
  public static final String RUN_FOLDER = "imported";

  /** Where an archive is unpacked before its job folder is known; no entry may use the name. */
  private static final String STAGING = ".tenbin-unpacking";

  private static final Pattern SAFE_FILE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  private ResultImport() {}

  /**
   * Keeps {@code run} as {@code imported/FILE} in {@code folder}, evaluates it on {@code task} as
   * the system {@code external:NAME} ({@link ExternalRun#evaluate}) and stores the cell there.
   *
   * @param fileName the run file's name as uploaded (kept when it is a plain name, else {@code
   *     run.trec})
   */
  public static ExternalRun.Imported trecRun(
      Path folder, byte[] run, String fileName, String name, JobTask task, int topK)
      throws IOException {
    Path runs = Files.createDirectories(folder.resolve(RUN_FOLDER));
    String kept =
        fileName != null && SAFE_FILE_NAME.matcher(fileName).matches() && !fileName.startsWith(".")
            ? fileName
            : "run.trec";
    Path file = runs.resolve(kept);
    Files.write(file, run, StandardOpenOption.CREATE_NEW);
    ExternalRun.Imported imported;
    try {
      imported = ExternalRun.evaluate(file, name, task, topK);
    } catch (InputFileException e) {
      // the message names the file by its path on this service: the client knows it by its name
      throw new InvalidInputException(
          "run", e.getMessage().replace(file.toString(), SafeText.quote(kept)));
    }
    ResultStore.open(folder).append(imported.record());
    return imported;
  }

  /**
   * Unpacks the zip {@code archive} of a job folder into {@code folder} (new and empty) and returns
   * the cells it holds. When every entry lies under one top folder without {@code cells/} of its
   * own beside it (the web UI's {@code JOB_ID/...}), that folder is the job folder.
   *
   * @throws InvalidInputException naming {@code field}: not a zip, an unsafe or duplicate entry,
   *     too large, or no stored cell that reads back
   */
  public static List<CellRecord> jobArchive(Path folder, InputStream archive, String field)
      throws IOException {
    Path staging = Files.createDirectories(folder.resolve(STAGING));
    List<String> written = new ArrayList<>();
    long bytes = 0;
    try (ZipInputStream zip = new ZipInputStream(archive)) {
      ZipEntry entry;
      while ((entry = zip.getNextEntry()) != null) {
        String path = entryPath(entry.getName(), field);
        if (entry.isDirectory()) {
          continue;
        }
        if (written.size() == MAX_ARCHIVE_FILES) {
          throw new InvalidInputException(
              field, field + " holds more than " + MAX_ARCHIVE_FILES + " files");
        }
        Path target = staging.resolve(path);
        Files.createDirectories(target.getParent());
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW)) {
          byte[] buffer = new byte[1 << 16];
          int n;
          while ((n = zip.read(buffer)) > 0) {
            bytes += n;
            if (bytes > MAX_ARCHIVE_BYTES) {
              throw new InvalidInputException(
                  field, field + " unpacks to more than " + MAX_ARCHIVE_BYTES + " bytes");
            }
            out.write(buffer, 0, n);
          }
        } catch (java.nio.file.FileAlreadyExistsException e) {
          throw new InvalidInputException(
              field, field + " holds " + SafeText.quote(path) + " twice");
        }
        written.add(path);
      }
    } catch (ZipException | java.io.EOFException e) {
      throw new InvalidInputException(
          field,
          field + " is not a readable zip archive: " + SafeText.escaped(e.getMessage(), 200));
    }
    if (written.isEmpty()) {
      throw new InvalidInputException(field, field + " is empty or not a zip archive");
    }
    Path root = staging.resolve(topFolder(written));
    try (var children = Files.list(root)) {
      for (Path child : children.toList()) {
        Files.move(child, folder.resolve(child.getFileName().toString()));
      }
    }
    deleteTree(staging);
    if (!Files.isDirectory(folder.resolve("cells"))) {
      throw new InvalidInputException(
          field, field + " holds no stored cell (a job folder has cells/*.cell.json)");
    }
    List<CellRecord> cells;
    try {
      cells = ResultStore.existing(folder, field).readAll();
    } catch (TenbinException | UncheckedIOException e) {
      throw new InvalidInputException(
          field,
          field
              + " is not a job folder whose cells read back: "
              + SafeText.escaped(
                  e.getMessage().replace(folder + "/", "").replace(folder.toString(), "it"), 300));
    }
    if (cells.isEmpty()) {
      throw new InvalidInputException(
          field, field + " holds no stored cell (a job folder has cells/*.cell.json)");
    }
    return cells;
  }

  /** The entry's path, checked: relative, plain names separated by '/'. */
  static String entryPath(String name, String field) {
    String path = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
    boolean bad =
        path.isEmpty()
            || path.startsWith("/")
            || path.contains("\\")
            || path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)
            || (path.length() > 1 && path.charAt(1) == ':');
    if (!bad) {
      for (String segment : path.split("/", -1)) {
        if (segment.isEmpty()
            || segment.equals(".")
            || segment.equals("..")
            || segment.equals(STAGING)) {
          bad = true;
          break;
        }
      }
    }
    if (bad) {
      throw new InvalidInputException(
          field,
          field
              + " holds the entry "
              + SafeText.quote(name)
              + ", which is not a relative path inside the job folder");
    }
    return path;
  }

  /**
   * The folder of {@code paths} that is the job folder: "" when a file lies at the top or there are
   * several top folders or the top already has {@code cells/}, else the one top folder.
   */
  private static String topFolder(List<String> paths) {
    String top = null;
    for (String path : paths) {
      int slash = path.indexOf('/');
      if (slash < 0) {
        return "";
      }
      String first = path.substring(0, slash);
      if (first.toLowerCase(Locale.ROOT).equals("cells") || (top != null && !top.equals(first))) {
        return "";
      }
      top = first;
    }
    return top == null ? "" : top;
  }

  private static void deleteTree(Path folder) throws IOException {
    try (var paths = Files.walk(folder)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
