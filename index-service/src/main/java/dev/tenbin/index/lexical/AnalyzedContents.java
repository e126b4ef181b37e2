package dev.tenbin.index.lexical;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.BytesTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.analysis.tokenattributes.TermFrequencyAttribute;
import org.apache.lucene.analysis.tokenattributes.TermToBytesRefAttribute;
import org.apache.lucene.util.AttributeFactory;
import org.apache.lucene.util.BytesRef;

/**
 * A document's contents as an analyzer tokenised them: each token's term (its UTF-8 bytes) and
 * position increment, in the analyzer's order, and the increment the analyzer reports at the end.
 * Made on any thread ({@link #of}), then replayed to Lucene's indexing chain ({@link #tokens()}):
 * the index receives the analyzer's own tokens, so it holds the same terms, frequencies, positions
 * and lengths (norms, overlaps discounted) as when Lucene runs the analyzer itself, while the
 * analysis can run on other threads than the writer's ({@link AheadAnalysis}).
 */
public final class AnalyzedContents {
  private final byte[] termBytes;
  private final int[] termEnds;
  private final int[] increments;
  private final int finalIncrement;

  private AnalyzedContents(byte[] termBytes, int[] termEnds, int[] increments, int finalIncrement) {
    this.termBytes = termBytes;
    this.termEnds = termEnds;
    this.increments = increments;
    this.finalIncrement = finalIncrement;
  }

  /**
   * Runs {@code analyzer} over {@code text} as field {@code field}. Analyzers may be shared between
   * threads (Lucene keeps their components per thread).
   *
   * @throws IllegalStateException when the analyzer sets a custom term frequency, which the replay
   *     does not carry (none of {@link LanguageAnalyzers}' does)
   */
  public static AnalyzedContents of(Analyzer analyzer, String field, String text) {
    byte[] bytes = new byte[Math.max(16, text.length())];
    int used = 0;
    int[] ends = new int[16];
    int[] increments = new int[16];
    int count = 0;
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      TermToBytesRefAttribute term = stream.getAttribute(TermToBytesRefAttribute.class);
      PositionIncrementAttribute increment = stream.addAttribute(PositionIncrementAttribute.class);
      TermFrequencyAttribute frequency = stream.addAttribute(TermFrequencyAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        if (frequency.getTermFrequency() != 1) {
          throw new IllegalStateException(
              "the analyzer sets a term frequency of "
                  + frequency.getTermFrequency()
                  + " on field "
                  + field
                  + ", which analysed contents do not replay");
        }
        BytesRef token = term.getBytesRef();
        if (used + token.length > bytes.length) {
          bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, used + token.length));
        }
        System.arraycopy(token.bytes, token.offset, bytes, used, token.length);
        used += token.length;
        if (count == ends.length) {
          ends = Arrays.copyOf(ends, count * 2);
          increments = Arrays.copyOf(increments, count * 2);
        }
        ends[count] = used;
        increments[count] = increment.getPositionIncrement();
        count++;
      }
      stream.end();
      return new AnalyzedContents(
          Arrays.copyOf(bytes, used),
          Arrays.copyOf(ends, count),
          Arrays.copyOf(increments, count),
          increment.getPositionIncrement());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyse the contents of field " + field, e);
    }
  }

  /** How many tokens the analyzer gave. */
  public int tokenCount() {
    return termEnds.length;
  }

  /**
   * A new token stream that gives the analyzer's tokens again, for one indexed field; each stream
   * can be read (reset, tokens, end) any number of times.
   */
  public TokenStream tokens() {
    return new Replay();
  }

  /**
   * The recorded tokens as Lucene's indexing chain reads them: a term as bytes (no second UTF-8
   * encoding), a position increment, a term frequency of 1, no offsets (this field records none).
   * Every attribute has its own implementation ({@link
   * AttributeFactory#DEFAULT_ATTRIBUTE_FACTORY}), so the bytes term is the one the chain reads.
   */
  private final class Replay extends TokenStream {
    private final BytesTermAttribute term;
    private final PositionIncrementAttribute increment;
    private final BytesRef current = new BytesRef(termBytes, 0, 0);
    private int next;

    Replay() {
      super(AttributeFactory.DEFAULT_ATTRIBUTE_FACTORY);
      term = addAttribute(BytesTermAttribute.class);
      increment = addAttribute(PositionIncrementAttribute.class);
    }

    @Override
    public boolean incrementToken() {
      if (next == termEnds.length) {
        return false;
      }
      clearAttributes();
      int start = next == 0 ? 0 : termEnds[next - 1];
      current.offset = start;
      current.length = termEnds[next] - start;
      term.setBytesRef(current);
      increment.setPositionIncrement(increments[next]);
      next++;
      return true;
    }

    @Override
    public void end() throws IOException {
      super.end();
      increment.setPositionIncrement(finalIncrement);
    }

    @Override
    public void reset() throws IOException {
      super.reset();
      next = 0;
    }
  }
}
