package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.eval.provenance.TenbinVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The eval service's durable job table: one folder per job under {@code <state>/jobs/<id>/} holding
 * {@code job.json} (the {@link JobRecord}: request with its task sets, state, folder, times, error)
 * and {@code events.jsonl} (an append-only log of the job's state changes).
 *
 * <p>{@code job.json} is replaced atomically: written to a temporary file, forced to disk, renamed
 * over the old one, and the folder forced, so a crash at any moment leaves the previous or the new
 * record, never a torn one. The table holds an exclusive lock on {@code <state>/.lock}: two
 * services never share a state folder. A record that cannot be read is reported in the log and
 * skipped, never deleted.
 */
public final class JobTable implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(JobTable.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int FORMAT = 1;
  private static final String FORMAT_FILE = "FORMAT";
  private static final Pattern ID = Pattern.compile("job-[0-9a-f]{12}");

  private final Path jobs;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private JobTable(Path jobs, FileChannel lockChannel, FileLock lock) {
    this.jobs = jobs;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Opens (creating when missing) the table under {@code stateDirectory}.
   *
   * @throws PreconditionException naming {@code --state-dir} when another service holds it
   */
  public static JobTable open(Path stateDirectory) {
    try {
      Files.createDirectories(stateDirectory.resolve("jobs"));
      FileChannel channel =
          FileChannel.open(
              stateDirectory.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        channel.close();
        throw new PreconditionException(
            "--state-dir",
            "another eval service uses the state folder "
                + stateDirectory
                + "; give each service its own --state-dir");
      }
      try {
        checkStateFormat(stateDirectory);
      } catch (RuntimeException | IOException e) {
        lock.release();
        channel.close();
        throw e;
      }
      return new JobTable(stateDirectory.resolve("jobs"), channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the job table in " + stateDirectory, e);
    }
  }

  /**
   * The state folder's format, in {@code <state>/FORMAT} ({@code {"format": N, "written_by":
   * VERSION}}): written when missing; a folder of a newer format (written by a newer Tenbin) is
   * refused, naming both, so a rolled-back service never runs on state it cannot read.
   */
  private static void checkStateFormat(Path stateDirectory) throws IOException {
    Path file = stateDirectory.resolve(FORMAT_FILE);
    if (!Files.exists(file)) {
      ObjectNode marker = JSON.createObjectNode();
      marker.put("format", FORMAT);
      marker.put("written_by", TenbinVersion.get());
      Path temporary = stateDirectory.resolve(FORMAT_FILE + ".tmp");
      Files.write(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(marker));
      Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
      return;
    }
    JsonNode marker;
    try {
      marker = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new PreconditionException(
          "--state-dir", "--state-dir: " + file + " cannot be read: " + e.getMessage());
    }
    int format = marker.path("format").asInt(-1);
    if (format != FORMAT) {
      throw new PreconditionException(
          "--state-dir",
          "--state-dir "
              + stateDirectory
              + " has state format "
              + marker.path("format").asText("?")
              + " (written by Tenbin "
              + marker.path("written_by").asText("?")
              + "); this Tenbin ("
              + TenbinVersion.get()
              + ") reads format "
              + FORMAT
              + (format > FORMAT
                  ? ": run that version or a newer one, or restore the state folder backed up"
                      + " before the upgrade (docs/operations.md, 'Upgrades and rollbacks')"
                  : ""));
    }
  }

  /** Every readable record, in submission order. */
  public List<JobRecord> load() {
    List<JobRecord> records = new ArrayList<>();
    try (Stream<Path> folders = Files.list(jobs)) {
      for (Path folder : folders.sorted().toList()) {
        Path file = folder.resolve("job.json");
        if (!ID.matcher(folder.getFileName().toString()).matches() || !Files.isRegularFile(file)) {
          continue;
        }
        try {
          records.add(fromJson(JSON.readTree(file.toFile())));
        } catch (IOException | RuntimeException e) {
          log.warn("job table: skipping {}, which cannot be read ({})", file, e.getMessage());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the job table " + jobs, e);
    }
    records.sort(Comparator.comparingLong(JobRecord::sequence));
    return records;
  }

  /** Replaces the job's record, atomically and durably. */
  public synchronized void save(JobRecord record) {
    Path folder = jobs.resolve(record.id());
    try {
      Files.createDirectories(folder);
      Path temporary = folder.resolve("job.json.tmp");
      byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(toJson(record));
      try (FileChannel channel =
          FileChannel.open(
              temporary,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      Files.move(
          temporary,
          folder.resolve("job.json"),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      forceFolder(folder);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the job table record of " + record.id(), e);
    }
  }

  /** Appends one line to the job's events log: {@code {"at", "event", "detail"}}. */
  public synchronized void event(String id, String event, String detail) {
    ObjectNode line = JSON.createObjectNode();
    line.put("at", Instant.now().toString());
    line.put("event", event);
    line.put("detail", detail);
    Path folder = jobs.resolve(id);
    try {
      Files.createDirectories(folder);
      try (FileChannel channel =
          FileChannel.open(
              folder.resolve("events.jsonl"),
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND,
              StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to the events of " + id, e);
    }
  }

  /** The job's events, oldest first; a line torn by a crash is skipped. */
  public List<JsonNode> events(String id) {
    Path file = jobs.resolve(id).resolve("events.jsonl");
    List<JsonNode> events = new ArrayList<>();
    if (!Files.isRegularFile(file)) {
      return events;
    }
    try {
      for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        try {
          events.add(JSON.readTree(text));
        } catch (IOException e) {
          // a torn last line
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the events of " + id, e);
    }
    return events;
  }

  @Override
  public void close() {
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      log.warn("job table: cannot release the state folder lock ({})", e.getMessage());
    }
  }

  private static void forceFolder(Path folder) {
    try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Not every file system lets a folder be opened and forced; the rename itself is atomic.
    }
  }

  private static ObjectNode toJson(JobRecord record) {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT);
    node.put("id", record.id());
    node.put("sequence", record.sequence());
    node.put("name", record.name());
    node.put("state", record.state().name());
    node.put("cancel_requested", record.cancelRequested());
    node.put("output_dir", record.outputDirectory().toString());
    node.put("submitted", record.submitted().toString());
    node.put("started", record.started() == null ? null : record.started().toString());
    node.put("ended", record.ended() == null ? null : record.ended().toString());
    node.put("cells_total", record.cellsTotal());
    node.put("cells_done", record.cellsDone());
    node.put("cells_cached", record.cellsCached());
    node.put("error", record.error());
    node.put("error_code", record.errorCode());
    ObjectNode request = node.putObject("request");
    request.put("output_dir", record.request().outputDirectory());
    request.put("spec_yaml", record.request().specYaml());
    ArrayNode taskSets = request.putArray("task_sets");
    for (JobRequest.TaskSetDocument document : record.request().taskSets()) {
      taskSets
          .addObject()
          .put("name", document.name())
          .put("base_dir", document.baseDirectory())
          .put("yaml", document.yaml());
    }
    return node;
  }

  private static JobRecord fromJson(JsonNode node) {
    if (node.path("format").asInt() != FORMAT) {
      throw new IllegalStateException("unknown record format " + node.path("format").asText());
    }
    JsonNode request = node.required("request");
    List<JobRequest.TaskSetDocument> taskSets = new ArrayList<>();
    for (JsonNode document : request.required("task_sets")) {
      taskSets.add(
          new JobRequest.TaskSetDocument(
              document.required("name").asText(),
              document.required("yaml").asText(),
              document.path("base_dir").asText("")));
    }
    return new JobRecord(
        node.required("id").asText(),
        node.required("sequence").asLong(),
        node.path("name").asText(""),
        JobManager.State.valueOf(node.required("state").asText()),
        node.path("cancel_requested").asBoolean(false),
        new JobRequest(
            request.required("spec_yaml").asText(),
            taskSets,
            request.required("output_dir").asText()),
        Path.of(node.required("output_dir").asText()),
        Instant.parse(node.required("submitted").asText()),
        instant(node.path("started")),
        instant(node.path("ended")),
        node.path("cells_total").asInt(),
        node.path("cells_done").asInt(),
        node.path("cells_cached").asInt(),
        node.path("error").asText(""),
        node.path("error_code").asText(""));
  }

  private static Instant instant(JsonNode node) {
    return node.isTextual() ? Instant.parse(node.asText()) : null;
  }
}
