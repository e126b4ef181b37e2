package dev.tenbin.index.collection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.DenseQuery;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.sparse.SparseDoc;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.FilterIndexOutput;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A disk that fills up while a batch is written: the client is told RESOURCE_EXHAUSTED with the
 * cause (no space left on device, which collection and store), the collection is back at its last
 * commit with no file of the failed batch left behind, and the batch commits once there is room.
 */
class DiskFullTest {
  private static final CollectionSpec SPEC = new CollectionSpec("c", "en", null, 2, 8, 0);

  @TempDir Path dataDir;

  /**
   * A Lucene directory whose writes fail with ENOSPC's message once the disk is "full": after
   * {@code room} more bytes over all files, or (with {@code merges}) only a background merge's.
   */
  private static final class FillingDisk {
    volatile boolean full;
    volatile boolean merges;
    final AtomicLong room = new AtomicLong();

    Directory wrap(Directory directory) {
      return new FilterDirectory(directory) {
        @Override
        public IndexOutput createOutput(String name, IOContext context) throws IOException {
          return filling(super.createOutput(name, context), context);
        }

        @Override
        public IndexOutput createTempOutput(String prefix, String suffix, IOContext context)
            throws IOException {
          return filling(super.createTempOutput(prefix, suffix, context), context);
        }
      };
    }

    private boolean applies(IOContext context) {
      return full && (!merges || context.context() == IOContext.Context.MERGE);
    }

    private IndexOutput filling(IndexOutput output, IOContext context) throws IOException {
      if (applies(context) && room.get() <= 0) {
        output.close();
        throw new IOException("No space left on device");
      }
      return new FilterIndexOutput("filling " + output, output.getName(), output) {
        @Override
        public void writeByte(byte b) throws IOException {
          spend(1);
          super.writeByte(b);
        }

        @Override
        public void writeBytes(byte[] b, int offset, int length) throws IOException {
          spend(length);
          super.writeBytes(b, offset, length);
        }

        private void spend(long bytes) throws IOException {
          if (applies(context) && room.addAndGet(-bytes) < 0) {
            throw new IOException("No space left on device");
          }
        }
      };
    }
  }

  /** Words no compression shrinks much: {@code count} different numbers. */
  private static String words(int count, int seed) {
    StringBuilder text = new StringBuilder("apple");
    java.util.Random random = new java.util.Random(seed);
    for (int i = 0; i < count; i++) {
      text.append(' ').append(random.nextInt(1_000_000));
    }
    return text.toString();
  }

  private static IngestDocument doc(String id, String text, float x) {
    return new IngestDocument(
        id, "", text, new float[] {x, 1}, new SparseDoc(new int[] {1}, new float[] {x}), null);
  }

  /** Every file under the collection's folder with its size. */
  private static TreeMap<String, Long> files(Path folder) throws IOException {
    try (Stream<Path> walk = Files.walk(folder)) {
      return walk.filter(Files::isRegularFile)
          .filter(file -> !file.getFileName().toString().equals("write.lock"))
          .collect(
              Collectors.toMap(
                  file -> folder.relativize(file).toString(),
                  file -> file.toFile().length(),
                  (a, b) -> a,
                  TreeMap::new));
    }
  }

  private static Set<String> lexicalIds(IndexCollection collection) {
    return Searches.top(collection, new LexicalQuery("apple"), 100).stream()
        .map(Hit::docId)
        .collect(Collectors.toSet());
  }

  private static void assertDiskFull(Throwable failure) {
    assertThat(failure).isNotNull();
    StatusRuntimeException status = StatusMapper.toStatusException(failure);
    assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getStatus().getDescription())
        .contains("no space left on device")
        .contains("collection c")
        .contains("bm25")
        .contains("last commit")
        .doesNotContain(File.separator + "c" + File.separator);
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 100, 4_000})
  void aBatchMeetingAFullDiskIsResourceExhaustedNamingTheCauseAndLeavesNothingBehind(long room)
      throws Exception {
    Path folder = dataDir.resolve("c");
    FillingDisk disk = new FillingDisk();
    try (IndexCollection collection = IndexCollection.open(SPEC, folder, true, disk::wrap)) {
      collection.ingest(List.of(doc("a", "apple", 1), doc("b", "apple pie", 2)));
      TreeMap<String, Long> committed = files(folder);
      disk.room.set(room);
      disk.full = true;

      Throwable failure =
          catchThrowable(
              () -> collection.ingest(List.of(doc("c", words(5_000, 1), 3), doc("d", "apple", 4))));

      assertDiskFull(failure);
      assertThat(files(folder)).isEqualTo(committed);
      assertThat(collection.size()).isEqualTo(2);
      assertThat(lexicalIds(collection)).containsExactlyInAnyOrder("a", "b");

      disk.full = false;
      collection.ingest(List.of(doc("c", words(5_000, 1), 3), doc("d", "apple", 4)));
      assertThat(lexicalIds(collection)).containsExactlyInAnyOrder("a", "b", "c", "d");
      assertThat(
              Searches.top(
                  collection,
                  new DenseQuery(
                      new float[] {1, 0}, DenseSearchOptions.exact(VectorSimilarity.DOT)),
                  10))
          .hasSize(4);
    }
    try (IndexCollection reopened = IndexCollection.open(SPEC, folder, false)) {
      assertThat(lexicalIds(reopened)).containsExactlyInAnyOrder("a", "b", "c", "d");
    }
  }

  /**
   * Lucene merges segments in the background; a merge that meets a full disk closes Lucene's writer
   * (a "tragic event"), and the next batch finds it closed: that, too, is the full disk, and the
   * collection recovers its writer once there is room.
   */
  @Test
  void aBackgroundMergeMeetingAFullDiskFailsTheNextBatchAsResourceExhaustedToo() throws Exception {
    Path folder = dataDir.resolve("c");
    FillingDisk disk = new FillingDisk();
    disk.merges = true;
    disk.full = true;
    Set<String> held = new java.util.HashSet<>();
    try (IndexCollection collection = IndexCollection.open(SPEC, folder, true, disk::wrap)) {
      Throwable failure = null;
      // Each batch commits a segment; the tenth makes Lucene merge them, which fails.
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      for (int batch = 0; failure == null && System.nanoTime() < deadline; batch++) {
        String id = "d" + batch;
        failure = catchThrowable(() -> collection.ingest(List.of(doc(id, "apple", 1))));
        if (failure == null) {
          held.add(id);
        } else {
          break;
        }
        if (batch >= 10) {
          Thread.sleep(20);
        }
      }

      assertDiskFull(failure);
      assertThat(lexicalIds(collection)).isEqualTo(held);

      disk.full = false;
      Throwable after = null;
      for (int attempt = 0; attempt < 50; attempt++) {
        after = catchThrowable(() -> collection.ingest(List.of(doc("last", "apple", 1))));
        if (after == null) {
          break;
        }
        // A merge that had begun before the room came back may still close a writer once.
        assertDiskFull(after);
        Thread.sleep(20);
      }
      assertThat(after).isNull();
      held.add("last");
      assertThat(lexicalIds(collection)).isEqualTo(held);
    }
    try (IndexCollection reopened = IndexCollection.open(SPEC, folder, false)) {
      assertThat(lexicalIds(reopened)).isEqualTo(held);
    }
  }
}
