package dev.tenbin.index.lexical;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;

/**
 * An index folder as its writer sees it: writes go to the folder's directory, and what the writer
 * reads (above all the segments a merge joins, stored text included) is read through positional
 * file reads instead of the memory maps searches use. Read through a memory map, a merge's pages
 * would count in the process's resident memory until the merged segments are closed; read through
 * the file channel they stay in the operating system's page cache only. The bytes are the same.
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

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    return reads.openInput(name, context);
  }

  /** Closes the positional reads only: the folder's directory belongs to the index. */
  @Override
  public void close() throws IOException {
    reads.close();
  }
}
