package dev.tenbin.encoder.onnx;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * A Hugging Face tokenizer (DJL) loaded from the bytes of a {@code tokenizer.json}, never by hub
 * name: special tokens added, truncation at the card's max length, no padding (batches pad
 * themselves).
 */
public final class TextTokenizer implements AutoCloseable {
  private final HuggingFaceTokenizer tokenizer;
  private final int maxLength;
  private final BertWordPiece fast;

  public TextTokenizer(byte[] tokenizerJson, int maxLength) {
    this.maxLength = maxLength;
    this.fast = BertWordPiece.of(tokenizerJson, maxLength).orElse(null);
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(
              new ByteArrayInputStream(tokenizerJson),
              Map.of(
                  "addSpecialTokens", "true",
                  "truncation", "true",
                  "padding", "false",
                  "maxLength", Integer.toString(maxLength),
                  "modelMaxLength", Integer.toString(maxLength)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load tokenizer.json", e);
    }
  }

  public TokenizedBatch encode(List<String> texts) {
    long[][] ids = new long[texts.size()][];
    boolean[] truncated = new boolean[texts.size()];
    for (int i = 0; i < texts.size(); i++) {
      Encoding encoding = tokenizer.encode(texts.get(i));
      ids[i] = encoding.getIds();
      truncated[i] = encoding.exceedMaxLength();
    }
    return new TokenizedBatch(ids, truncated);
  }

  /** Token ids and type ids of (query, document) pairs, truncated to the max length. */
  public long[][][] encodePairs(String query, java.util.List<String> documents) {
    long[][] ids = new long[documents.size()][];
    long[][] types = new long[documents.size()][];
    for (int i = 0; i < documents.size(); i++) {
      Encoding encoding = tokenizer.encode(query, documents.get(i));
      ids[i] = encoding.getIds();
      types[i] = encoding.getTypeIds();
    }
    return new long[][][] {ids, types};
  }

  /** The id of a token string, or -1 when the vocabulary has none. */
  public long tokenId(String token) {
    long[] ids = tokenizer.encode(token, false, false).getIds();
    return ids.length == 1 ? ids[0] : -1;
  }

  /** Tokens as strings, for the Tokenize RPC. */
  public String[] tokens(String text) {
    return tokenizer.encode(text).getTokens();
  }

  /**
   * Tokens without special tokens (the LightRetriever's query side), truncated to the max length.
   * BERT WordPiece tokenizers answer from the pure-Java {@link BertWordPiece} when it handles the
   * text exactly; every other text and tokenizer goes to the native tokenizer.
   */
  public long[] idsWithoutSpecialTokens(String text) {
    if (fast != null) {
      long[] ids = fast.encode(text);
      if (ids != null) {
        return ids;
      }
    }
    return nativeIdsWithoutSpecialTokens(text);
  }

  /** {@link #idsWithoutSpecialTokens} from the native tokenizer alone. */
  public long[] nativeIdsWithoutSpecialTokens(String text) {
    // Straight to the native tokenizer: only the ids are fetched, not the tokens, spans and masks
    // DJL's Encoding would copy across JNI (the LightRetriever query path lives on this call).
    long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text, false);
    try {
      long[] ids = TokenizersLibrary.LIB.getTokenIds(encoding);
      return ids.length > maxLength ? java.util.Arrays.copyOf(ids, maxLength) : ids;
    } finally {
      TokenizersLibrary.LIB.deleteEncoding(encoding);
    }
  }

  public String decodeToken(long id) {
    return tokenizer.decode(new long[] {id}, false);
  }

  /** Whether a pure-Java WordPiece fast path serves {@link #idsWithoutSpecialTokens}. */
  public boolean hasFastPath() {
    return fast != null;
  }

  public int maxLength() {
    return maxLength;
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
