package dev.tenbin.eval.browse;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored cells of a set of job folders, each cell with the job that stored it. A fingerprint
 * stored by several folders counts once, from the first folder given (as the warehouse loads it).
 *
 * @param jobs job id (the job folder's name, or the id a caller gives) to its folder, in order
 * @param cells every distinct cell, rankings left in their files
 * @param jobOf fingerprint to the id of the job that stored it
 * @param files fingerprint to its stored file's path inside the job folder, "/" separated
 *     ("cells/FINGERPRINT.cell.json")
 */
record Catalog(
    Map<String, Path> jobs,
    List<CellRecord> cells,
    Map<String, String> jobOf,
    Map<String, String> files) {
  static final Catalog EMPTY = new Catalog(Map.of(), List.of(), Map.of(), Map.of());

  /**
   * Reads the cells of {@code jobDirs}, each job's id its folder's name.
   *
   * @throws InvalidInputException when a folder holds no job results, or two share a name
   */
  static Catalog read(List<Path> jobDirs) {
    return read(byFolderName(jobDirs));
  }

  /** {@code jobDirs} by their folders' names, in order. */
  static Map<String, Path> byFolderName(List<Path> jobDirs) {
    Map<String, Path> jobs = new LinkedHashMap<>();
    for (Path dir : jobDirs) {
      Path jobDir = dir.toAbsolutePath().normalize();
      String id = jobId(jobDir);
      Path other = jobs.putIfAbsent(id, jobDir);
      if (other != null && !other.equals(jobDir)) {
        throw new InvalidInputException(
            "jobDirs", "two job folders have the name " + id + ": " + other + " and " + jobDir);
      }
    }
    return jobs;
  }

  /**
   * Reads the cells of the job folders {@code jobs} names by their ids, in its order.
   *
   * @throws InvalidInputException when a folder holds no job results
   */
  static Catalog read(Map<String, Path> jobs) {
    Map<String, Path> folders = new LinkedHashMap<>();
    List<CellRecord> cells = new ArrayList<>();
    Map<String, String> jobOf = new HashMap<>();
    Map<String, String> files = new HashMap<>();
    for (Map.Entry<String, Path> job : jobs.entrySet()) {
      String id = job.getKey();
      Path jobDir = job.getValue().toAbsolutePath().normalize();
      folders.put(id, jobDir);
      ResultStore store = ResultStore.existing(jobDir, "jobDirs");
      for (CellRecord cell : store.readAll(ResultStore.Rankings.LEFT_IN_FILE)) {
        if (jobOf.putIfAbsent(cell.fingerprint(), id) == null) {
          cells.add(cell);
          Path file = store.storedFile(cell.fingerprint());
          if (file != null) {
            files.put(cell.fingerprint(), jobDir.relativize(file).toString().replace('\\', '/'));
          }
        }
      }
    }
    return new Catalog(
        Collections.unmodifiableMap(folders),
        List.copyOf(cells),
        Map.copyOf(jobOf),
        Map.copyOf(files));
  }

  /** A job's id: its folder's name. */
  static String jobId(Path jobDir) {
    Path name = jobDir.getFileName();
    if (name == null) {
      throw new InvalidInputException("jobDirs", "a job folder needs a name: " + jobDir);
    }
    return name.toString();
  }
}
