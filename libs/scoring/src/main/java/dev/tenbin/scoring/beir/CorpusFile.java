package dev.tenbin.scoring.beir;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A corpus walked from its file on each pass ({@code corpus.jsonl}, or {@code corpus.jsonl.gz}
 * through gzip), checked once when the folder was read ({@link BeirDatasetReader}): ids valid and
 * unique, titles and texts strings. A walk checks that the file is still the one that was read
 * (same size, same modification time).
 */
final class CorpusFile implements Corpus {
  private final Path file;
  private final int size;
  private final long words;
  private final long bytes;
  private final FileTime modified;

  /** The corpus in {@code file}: {@code size} documents of {@code words} words ({@link #words}). */
  CorpusFile(Path file, int size, long words) {
    this.file = file;
    this.size = size;
    this.words = words;
    try {
      this.bytes = Files.size(file);
      this.modified = Files.getLastModifiedTime(file);
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public int size() {
    return size;
  }

  /** Counted by the walk that checked the file: no further walk. */
  @Override
  public long words() {
    return words;
  }

  /** The file walked. */
  Path file() {
    return file;
  }

  private void checkUnchanged() {
    try {
      if (Files.size(file) != bytes || !Files.getLastModifiedTime(file).equals(modified)) {
        throw new DatasetException(
            file + " changed after the collection was read; read the folder again");
      }
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  static CorpusDocument document(JsonNode node, Path file, int line) {
    return new CorpusDocument(
        JsonlReader.requiredId(node, "_id", file, line),
        JsonlReader.optionalText(node, "title", file, line),
        JsonlReader.optionalText(node, "text", file, line));
  }

  @Override
  public void forEach(Consumer<? super CorpusDocument> action) {
    checkUnchanged();
    JsonlReader.read(file, (node, line) -> action.accept(document(node, file, line)));
  }

  @Override
  public Iterator<CorpusDocument> iterator() {
    return walk();
  }

  @Override
  public Walk walk() {
    checkUnchanged();
    BufferedReader reader;
    try {
      reader = JsonlReader.open(file);
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return new Walk() {
      private CorpusDocument next;
      private int line;
      private boolean done;

      private void advance() {
        if (next != null || done) {
          return;
        }
        try {
          String text;
          while ((text = reader.readLine()) != null) {
            line++;
            if (!text.isBlank()) {
              next = document(JsonlReader.parse(file, line, text), file, line);
              return;
            }
          }
          done = true;
          reader.close();
        } catch (IOException e) {
          done = true;
          try {
            reader.close();
          } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw new UncheckedIOException("cannot read " + file, e);
        } catch (RuntimeException e) {
          done = true;
          try {
            reader.close();
          } catch (IOException suppressed) {
            e.addSuppressed(suppressed);
          }
          throw e;
        }
      }

      @Override
      public boolean hasNext() {
        advance();
        return next != null;
      }

      @Override
      public CorpusDocument next() {
        advance();
        if (next == null) {
          throw new NoSuchElementException();
        }
        CorpusDocument document = next;
        next = null;
        return document;
      }

      @Override
      public void close() {
        done = true;
        next = null;
        try {
          reader.close();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot close " + file, e);
        }
      }
    };
  }

  @Override
  public String toString() {
    return "corpus of " + size + " documents in " + file;
  }
}
