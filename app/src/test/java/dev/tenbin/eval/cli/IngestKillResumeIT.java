package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.scoring.beir.SyntheticBeir;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code kill -9} mid-ingest: {@code tenbin run} in its own JVM fills its BM25 collection on
 * an index service of this JVM (which survives it) and is killed with SIGKILL once two corpus
 * slices are committed and the third is held unacknowledged. The same command run again finds the
 * collection, ingests only the third slice, and writes the same run as a run never interrupted; the
 * collection held the corpus once.
 */
class IngestKillResumeIT {
  /** Three corpus slices of 4,096 documents: two whole ones and 1,808. */
  private static final int DOCUMENTS = 10_000;

  /** Ingest batches (a slice each) the index commits before it holds the killed run's. */
  private static final int BATCHES_BEFORE_KILL = 2;

  @TempDir Path tmp;

  /**
   * Passes Ingest batches until {@link #allowed} have passed, then holds the rest of that stream
   * and its end (neither committed nor acknowledged, as on a stalled connection); counts what
   * passed, and notes each collection's document count as it is dropped.
   */
  private static final class Gate implements ServerInterceptor {
    private final CollectionCatalog catalog;
    volatile int allowed = BATCHES_BEFORE_KILL;
    final AtomicInteger batches = new AtomicInteger();
    final AtomicLong documents = new AtomicLong();
    final Map<String, Long> countAtDrop = new ConcurrentHashMap<>();

    Gate(CollectionCatalog catalog) {
      this.catalog = catalog;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        private boolean holding;

        @Override
        public void onMessage(Q message) {
          if (message instanceof IngestRequest batch) {
            if (holding || batches.get() >= allowed) {
              holding = true;
              return;
            }
            batches.incrementAndGet();
            documents.addAndGet(batch.getDocumentsCount());
          }
          if (message instanceof DropCollectionRequest drop) {
            countAtDrop.put(
                drop.getName(), catalog.describe(drop.getName(), "name").documentCount());
          }
          super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
          // A held stream's end is held too: the service would end it without the held batches.
          if (!holding) {
            super.onHalfClose();
          }
        }
      };
    }
  }

  private List<String> command(Path out, int port) throws Exception {
    return TinyRunJob.runCommand(
        tmp, tmp.resolve("job.yaml"), out, "--index-endpoint", "127.0.0.1:" + port);
  }

  private Process start(List<String> command, String log) throws Exception {
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(tmp.resolve(log).toFile())
        .start();
  }

  private String finish(Process child, String log) throws Exception {
    assertThat(child.waitFor(120, TimeUnit.SECONDS)).as(log + " finished").isTrue();
    String output = Files.readString(tmp.resolve(log));
    assertThat(child.exitValue()).as(output).isZero();
    return output;
  }

  /** The job's BM25 run as a TREC run file. */
  private byte[] runFile(Path out, String name) throws Exception {
    return CliRunner.trecRun(out, "bm25", "t", tmp.resolve(name));
  }

  @Test
  void aRunKilledMidIngestResumesAfterTheCommittedSlicesAndWritesTheSameRun() throws Exception {
    SyntheticBeir.write(tmp.resolve("data"), DOCUMENTS, 8, 20, 7);
    Files.createDirectories(tmp.resolve("models"));
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: t, language: en, source: {path: data}}\n");
    Files.writeString(tmp.resolve("job.yaml"), "task_sets: [tasks.yaml]\nretrievers: [bm25]\n");
    Path indexData = tmp.resolve("index-data");
    try (CollectionCatalog catalog = CollectionCatalog.open(indexData)) {
      Gate gate = new Gate(catalog);
      List<BindableService> services = new ArrayList<>();
      for (BindableService service :
          IndexServer.services(catalog, IndexServiceConfig.embedded(indexData))) {
        services.add(() -> ServerInterceptors.intercept(service, gate));
      }
      GrpcServerHost host =
          GrpcServerHost.start(
              new ServerSettings("127.0.0.1", 0, -1, 1 << 24, Duration.ofSeconds(1)), services);
      try {
        Path out = tmp.resolve("out");
        List<String> command = command(out, host.port());
        Process killed = start(command, "killed.log");
        String collection = awaitCommitted(catalog, killed, BATCHES_BEFORE_KILL * 4_096L);
        assertThat(killed.isAlive()).as("the run was still ingesting").isTrue();
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        assertThat(gate.countAtDrop).as("the killed run dropped nothing").isEmpty();

        gate.allowed = Integer.MAX_VALUE;
        gate.documents.set(0);
        String log = finish(start(command, "again.log"), "again.log");

        assertThat(log)
            .contains(
                "resuming the ingest at slice 3 of 3; 2 slices (8192 documents) were committed"
                    + " before");
        // Only the third slice was sent again, and the collection held the corpus once.
        assertThat(gate.documents).hasValue(DOCUMENTS - 2 * 4_096);
        assertThat(gate.countAtDrop).containsEntry(collection, (long) DOCUMENTS);
        assertThat(catalog.list())
            .as("the collection is dropped once the work item is done")
            .isEmpty();
        assertThat(Files.readString(out.resolve("events.jsonl")))
            .contains("\"work_note\"")
            .contains("resuming the ingest at slice 3 of 3");

        Path whole = tmp.resolve("whole");
        gate.documents.set(0);
        finish(start(command(whole, host.port()), "whole.log"), "whole.log");
        assertThat(gate.documents)
            .as("another job fills a collection of its own")
            .hasValue(DOCUMENTS);
        assertThat(runFile(out, "resumed.run")).isEqualTo(runFile(whole, "whole.run"));
      } finally {
        host.close();
      }
    }
  }

  /**
   * Waits (up to 90 s) until a collection holds {@code documents} committed documents; returns its
   * name.
   */
  private static String awaitCommitted(CollectionCatalog catalog, Process child, long documents)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline && child.isAlive()) {
      for (var stats : catalog.describeAll()) {
        if (stats.documentCount() == documents) {
          return stats.name();
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("no collection reached " + documents + " documents");
  }
}
