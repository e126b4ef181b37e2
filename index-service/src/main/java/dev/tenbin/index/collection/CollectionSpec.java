package dev.tenbin.index.collection;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.lexical.Bm25Parameters;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * What a collection stores and how it is analysed; fixed at creation and persisted beside it.
 *
 * @param name collection name: letters, digits, '.', '_' and '-', at most 128 characters
 * @param language normalised ISO 639 code selecting the BM25 analyzer
 * @param bm25 BM25 parameters
 * @param denseDimension dimension of stored dense vectors, 0 for none, at most {@value
 *     #MAX_DIMENSION}
 * @param sparseVocabularySize vocabulary size of stored sparse vectors, 0 for none
 * @param multiVectorDimension dimension of stored token vectors, 0 for none, at most {@value
 *     #MAX_DIMENSION}
 */
public record CollectionSpec(
    String name,
    String language,
    Bm25Parameters bm25,
    int denseDimension,
    int sparseVocabularySize,
    int multiVectorDimension) {
  /** Largest dense or multi-vector dimension. */
  public static final int MAX_DIMENSION = 65_536;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  public CollectionSpec {
    if (name == null || !NAME.matcher(name).matches() || name.startsWith(".")) {
      throw new InvalidInputException(
          "spec.name",
          "collection name must be 1-128 letters, digits, '.', '_' or '-' (not starting with"
              + " '.'), got "
              + Excerpt.of(name));
    }
    language = LanguageAnalyzers.normalize(language);
    bm25 = bm25 == null ? Bm25Parameters.ANSERINI_DEFAULTS : bm25;
    requireWithin("spec.dense_dimension", denseDimension, MAX_DIMENSION);
    requireWithin("spec.sparse_vocabulary_size", sparseVocabularySize, Integer.MAX_VALUE);
    requireWithin("spec.multivector_dimension", multiVectorDimension, MAX_DIMENSION);
  }

  private static void requireWithin(String field, int value, int max) {
    if (value < 0 || value > max) {
      throw new InvalidInputException(
          field, field + " must be within 0.." + max + ", got " + value);
    }
  }

  public static CollectionSpec lexical(String name, String language) {
    return new CollectionSpec(name, language, Bm25Parameters.ANSERINI_DEFAULTS, 0, 0, 0);
  }

  /** The spec as the text of its {@code collection.properties} file. */
  String toProperties() {
    Properties props = new Properties();
    props.setProperty("name", name);
    props.setProperty("language", language);
    props.setProperty("bm25.k1", Float.toString(bm25.k1()));
    props.setProperty("bm25.b", Float.toString(bm25.b()));
    props.setProperty("dense.dimension", Integer.toString(denseDimension));
    props.setProperty("sparse.vocabulary_size", Integer.toString(sparseVocabularySize));
    props.setProperty("multivector.dimension", Integer.toString(multiVectorDimension));
    StringWriter out = new StringWriter();
    try {
      props.store(out, "Tenbin collection spec");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Reads a spec file.
   *
   * @throws IllegalStateException when the file is unreadable or does not hold a valid spec
   */
  static CollectionSpec readFrom(Path file) {
    Properties props = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "the collection spec " + file.getFileName() + " cannot be read", e);
    }
    try {
      return new CollectionSpec(
          props.getProperty("name"),
          props.getProperty("language"),
          new Bm25Parameters(
              Float.parseFloat(props.getProperty("bm25.k1")),
              Float.parseFloat(props.getProperty("bm25.b"))),
          Integer.parseInt(props.getProperty("dense.dimension", "0")),
          Integer.parseInt(props.getProperty("sparse.vocabulary_size", "0")),
          Integer.parseInt(props.getProperty("multivector.dimension", "0")));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the collection spec "
              + file.getFileName()
              + " is damaged: it does not hold a valid spec",
          e);
    }
  }
}
