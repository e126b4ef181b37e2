package dev.tenbin.index.lexical;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.NIOFSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A merge reads the segments it joins through positional file reads, a search through the folder's
 * memory maps; the merged index holds the same documents.
 */
class WriterDirectoryTest {
  @TempDir Path dir;

  @Test
  void mergesReadThroughTheFileChannelAndSearchesThroughMemoryMaps() throws IOException {
    List<String> writerReads = new CopyOnWriteArrayList<>();
    Directory recording =
        new FilterDirectory(new NIOFSDirectory(dir)) {
          @Override
          public IndexInput openInput(String name, IOContext context) throws IOException {
            writerReads.add(name);
            return super.openInput(name, context);
          }
        };
    try (Directory directory = FSDirectory.open(dir);
        WriterDirectory writes = new WriterDirectory(directory, recording)) {
      try (IndexWriter writer =
          new IndexWriter(
              writes,
              new IndexWriterConfig()
                  .setMergePolicy(new LogDocMergePolicy())
                  .setUseCompoundFile(false))) {
        for (int commit = 0; commit < 3; commit++) {
          for (int i = 0; i < 10; i++) {
            Document document = new Document();
            document.add(
                new TextField("contents", "word" + i + " commit" + commit, Field.Store.NO));
            document.add(new StoredField("id", commit * 10 + i));
            writer.addDocument(document);
          }
          writer.commit();
        }
        assertThat(writerReads).as("the ingest's reads went to the memory maps").isEmpty();
        int beforeMerge = writerReads.size();
        writes.readingThroughFiles(() -> writer.forceMerge(1));
        assertThat(writerReads.subList(beforeMerge, writerReads.size()))
            .as("the merge read the stored fields of the three segments it joined")
            .contains("_0.fdt", "_1.fdt", "_2.fdt");
        writer.commit();
      }
      int merged = writerReads.size();
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        assertThat(reader.leaves()).hasSize(1);
        assertThat(reader.numDocs()).isEqualTo(30);
        for (int doc = 0; doc < 30; doc++) {
          assertThat(reader.storedFields().document(doc).getField("id").numericValue().intValue())
              .isEqualTo(doc);
        }
      }
      // A search's reads went to the folder's memory maps.
      assertThat(writerReads).hasSize(merged);
      String anyFile = directory.listAll()[0];
      try (IndexInput search = directory.openInput(anyFile, IOContext.DEFAULT)) {
        assertThat(search.getClass().getName()).contains("MemorySegment");
      }
    }
  }
}
