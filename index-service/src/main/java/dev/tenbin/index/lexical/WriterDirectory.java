package dev.tenbin.index.lexical;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;

/**
 * An index folder as its writer sees it: writes go to the folder's directory, and while {@link
 * #readingThroughFiles} what the writer reads (the segments a merge joins, stored text included) is
 * read through positional file reads instead of the folder's memory maps. Read through a memory
 * map, a merge of the whole index would hold every page of it in the process's resident memory
 * until the merged segments are closed; read through the file channel the pages stay in the
 * operating system's page cache only. The bytes are the same. Outside it (the merges of an ingest,
 * which join a few small segments at a time) the writer reads through the memory maps, which is
 * faster.
 */
final class WriterDirectory extends FilterDirectory {
  private final Directory reads;

  WriterDirectory(Directory folder, Directory reads) {
    super(folder);
    this.reads = reads;
  }

  /** The writer's view of {@code folder}, the directory of {@code path}. */
  static WriterDirectory over(Directory folder, Path path) throws IOException {
    return new WriterDirectory(folder, new NIOFSDirectory(path));
  }

  private volatile boolean throughFiles;

  /** Runs {@code merge} with the writer's reads going through positional file reads. */
  <E extends Exception> void readingThroughFiles(Action<E> merge) throws E {
    throughFiles = true;
    try {
      merge.run();
    } finally {
      throughFiles = false;
    }
  }

  /** An action that may throw {@code E}. */
  interface Action<E extends Exception> {
    void run() throws E;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    if (throughFiles) {
      ensureOpen();
      return reads.openInput(name, context);
    }
    return super.openInput(name, context);
  }

  /** Closes the positional reads only: the folder's directory belongs to the index. */
  @Override
  public void close() throws IOException {
    reads.close();
  }
}
