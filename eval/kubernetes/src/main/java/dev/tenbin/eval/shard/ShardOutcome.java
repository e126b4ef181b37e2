package dev.tenbin.eval.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.store.ResultStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one shard run did, as {@code shards/shard-I-of-K.json} beside the cells: the executor that
 * started it (a local process or a pod) reads it back to report cells computed against cells found
 * stored. Rewritten by every run of the shard; a killed run leaves the previous one's.
 *
 * @param shard which shard
 * @param cellsTotal cells of the shard
 * @param cellsAlreadyStored cells found stored when the run began (skipped)
 * @param cellsComputed cells computed and stored by the run
 * @param failures one line per failed work item
 * @param cancelled whether the run was cancelled
 */
public record ShardOutcome(
    Shard shard,
    int cellsTotal,
    int cellsAlreadyStored,
    int cellsComputed,
    List<String> failures,
    boolean cancelled) {
  public static ShardOutcome of(Shard shard, JobOutcome outcome) {
    return new ShardOutcome(
        shard,
        outcome.cellsTotal(),
        outcome.cellsAlreadyStored(),
        outcome.cellsComputed(),
        outcome.failures(),
        outcome.cancelled());
  }

  /** The file of {@code shard} in the job folder {@code directory}. */
  public static Path file(Path directory, Shard shard) {
    return directory.resolve("shards").resolve(shard.fileStem() + ".json");
  }

  /** Writes this outcome (atomically) into the job folder. */
  public void write(Path directory) {
    ObjectNode root = ResultStore.JSON.createObjectNode();
    root.put("shard", shard.label());
    root.put("cells_total", cellsTotal);
    root.put("cells_already_stored", cellsAlreadyStored);
    root.put("cells_computed", cellsComputed);
    failures.forEach(root.putArray("failures")::add);
    root.put("cancelled", cancelled);
    Path target = file(directory, shard);
    try {
      Files.createDirectories(target.getParent());
      Path temporary =
          target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid());
      Files.writeString(temporary, root.toPrettyString(), StandardCharsets.UTF_8);
      Files.move(
          temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + target, e);
    }
  }

  /** The outcome last written for {@code shard}, if any. */
  public static Optional<ShardOutcome> read(Path directory, Shard shard) {
    Path file = file(directory, shard);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      JsonNode root = ResultStore.JSON.readTree(file.toFile());
      List<String> failures = new ArrayList<>();
      root.path("failures").forEach(f -> failures.add(f.asText()));
      return Optional.of(
          new ShardOutcome(
              Shard.parse(root.get("shard").asText()),
              root.get("cells_total").asInt(),
              root.get("cells_already_stored").asInt(),
              root.get("cells_computed").asInt(),
              List.copyOf(failures),
              root.get("cancelled").asBoolean()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Whether every cell of the shard is stored and nothing failed. */
  public boolean succeeded() {
    return failures.isEmpty() && !cancelled && cellsAlreadyStored + cellsComputed == cellsTotal;
  }
}
