package dev.tenbin.scoring.beir;

import dev.tenbin.scoring.metrics.Qrels;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@code qrels/spans.tsv}: {@code query-id corpus-id start end}, tab separated, with or
 * without the header line; offsets are characters (code points) into the document's {@code text},
 * end exclusive. Every problem is a {@link DatasetException} naming the file and line: a wrong
 * column count, offsets that are not integers or fall outside the text, a query absent from {@code
 * queries.jsonl}, a document absent from the corpus or not judged relevant for the query.
 */
public final class SpanQrelsReader {
  static final String HEADER = "query-id\tcorpus-id\tstart\tend";

  private SpanQrelsReader() {}

  public static SpanQrels read(
      Path file, Map<String, String> queries, Map<String, CorpusDocument> corpus, Qrels qrels) {
    Map<String, AnswerSpan> earliest = new LinkedHashMap<>();
    Map<String, Integer> lengths = new LinkedHashMap<>();
    int lineNumber = 0;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank() || (lineNumber == 1 && line.strip().equals(HEADER))) {
          continue;
        }
        String[] parts = line.strip().split("\t");
        if (parts.length != 4) {
          throw at(
              file,
              lineNumber,
              "expected 4 tab-separated columns (query-id corpus-id start end), got "
                  + parts.length);
        }
        String queryId = parts[0];
        String docId = parts[1];
        if (!queries.containsKey(queryId)) {
          throw at(file, lineNumber, "query '" + queryId + "' is not in queries.jsonl");
        }
        CorpusDocument doc = corpus.get(docId);
        if (doc == null) {
          throw at(file, lineNumber, "document '" + docId + "' is not in corpus.jsonl");
        }
        Integer grade = qrels.judgments(queryId).get(docId);
        if (grade == null || grade <= 0) {
          throw at(
              file,
              lineNumber,
              "document '"
                  + docId
                  + "' is not judged relevant for query '"
                  + queryId
                  + "' in qrels/test.tsv");
        }
        int start = offset(file, lineNumber, "start", parts[2]);
        int end = offset(file, lineNumber, "end", parts[3]);
        int length =
            lengths.computeIfAbsent(docId, id -> doc.text().codePointCount(0, doc.text().length()));
        if (end < start || end > length) {
          throw at(
              file,
              lineNumber,
              "span ["
                  + start
                  + ", "
                  + end
                  + ") is outside document '"
                  + docId
                  + "' ("
                  + length
                  + " characters of text)");
        }
        AnswerSpan span = new AnswerSpan(docId, start, end, length);
        earliest.merge(queryId, span, SpanQrelsReader::earlier);
      }
    } catch (CharacterCodingException e) {
      throw at(file, lineNumber + 1, "not valid UTF-8");
    } catch (IOException e) {
      throw new DatasetException("cannot read " + file + " (" + e.getMessage() + ")", e);
    }
    return SpanQrels.of(earliest);
  }

  private static AnswerSpan earlier(AnswerSpan kept, AnswerSpan next) {
    if (next.start() < kept.start() || (next.start() == kept.start() && next.end() < kept.end())) {
      return next;
    }
    return kept;
  }

  private static int offset(Path file, int line, String column, String text) {
    try {
      int value = Integer.parseInt(text.strip());
      if (value < 0) {
        throw at(file, line, column + " offset " + value + " is negative");
      }
      return value;
    } catch (NumberFormatException e) {
      throw at(file, line, column + " offset '" + text + "' is not an integer");
    }
  }

  private static DatasetException at(Path file, int line, String problem) {
    return new DatasetException(file + " line " + line + ": " + problem);
  }
}
