package dev.tenbin.model.tokenizer;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.Lifetime;
import dev.tenbin.core.PreconditionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Hugging Face tokenizer (DJL) loaded from the bytes of a {@code tokenizer.json}, never by hub
 * name: special tokens added, truncation at the card's max length, no padding (batches pad
 * themselves).
 *
 * <p>Every native call holds a lease on the tokenizer's {@link Lifetime}, so {@link #close()} frees
 * the native tokenizer only once no thread is inside it; calls after closing are UNAVAILABLE.
 * Batches are tokenized one text at a time, checking the caller's cancellation between texts.
 *
 * <p>The native tokenizer reads a whole text even when it keeps only the first {@code maxLength}
 * tokens (a 100,000-character text costs ~150 ms). For tokenizers that split words at whitespace
 * before anything else, a long text is first tokenized from a prefix cut at a whitespace: when that
 * prefix already overflows the maximum length, its tokens are exactly the full text's (every word
 * of the prefix is whole) and the rest is never read; otherwise the full text is tokenized.
 *
 * <p>A decoder embedder that expects an EOS token at the end of every input (Qwen3-Embedding's
 * {@code <|endoftext|>}) gets it from {@link #encode}: appended unless the tokenizer's
 * post-processor already ended the input with it, replacing the last token when the input is
 * already at the max length (so the length bound holds).
 */
public final class TextTokenizer implements AutoCloseable {
  private final HuggingFaceTokenizer tokenizer;
  private final int maxLength;
  private final BertWordPiece fast;
  private final Lifetime lifetime;

  /** The id appended to every encoded input, or -1 for none. */
  private final long eosId;

  /** The token of {@link #eosId}, or empty. */
  private final String eosToken;

  /** Texts longer than this are first tokenized from a prefix of about this length; 0 = never. */
  private final int prefixChars;

  public TextTokenizer(byte[] tokenizerJson, int maxLength) {
    this(tokenizerJson, maxLength, "");
  }

  /**
   * A tokenizer that ends every input of {@link #encode} with {@code eosToken} (empty: none).
   *
   * @throws PreconditionException naming {@code card.decoder.eos_token} when the vocabulary has no
   *     such token
   */
  public TextTokenizer(byte[] tokenizerJson, int maxLength, String eosToken) {
    this.maxLength = maxLength;
    this.fast = BertWordPiece.of(tokenizerJson, maxLength).orElse(null);
    try {
      this.tokenizer =
          NativeTokenizers.open(
              tokenizerJson,
              Map.of(
                  "addSpecialTokens", "true",
                  "truncation", "true",
                  "padding", "false",
                  "maxLength", Integer.toString(maxLength),
                  "modelMaxLength", Integer.toString(maxLength)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load tokenizer.json", e);
    }
    this.lifetime = new Lifetime("the tokenizer", tokenizer::close);
    this.prefixChars = splitsAtWhitespace(tokenizerJson) ? PREFIX_CHARS_PER_TOKEN * maxLength : 0;
    this.eosToken = eosToken == null ? "" : eosToken;
    if (eosToken == null || eosToken.isEmpty()) {
      this.eosId = -1;
    } else {
      long id = tokenId(eosToken);
      if (id < 0) {
        tokenizer.close();
        throw new PreconditionException(
            "card.decoder.eos_token",
            "the card's decoder.eos_token " + eosToken + " is not one token of the tokenizer");
      }
      this.eosId = id;
    }
  }

  /** The id of the EOS token {@link #encode} ends inputs with, or -1 for none. */
  public long eosId() {
    return eosId;
  }

  /** {@code ids} ending with the EOS token: appended, or in place of the last at the max length. */
  private long[] withEos(long[] ids) {
    if (eosId < 0 || (ids.length > 0 && ids[ids.length - 1] == eosId)) {
      return ids;
    }
    if (ids.length >= maxLength) {
      long[] out = Arrays.copyOf(ids, maxLength);
      out[maxLength - 1] = eosId;
      return out;
    }
    long[] out = Arrays.copyOf(ids, ids.length + 1);
    out[ids.length] = eosId;
    return out;
  }

  /** Characters per kept token in the prefix tried first; generous, real text averages ~5. */
  private static final int PREFIX_CHARS_PER_TOKEN = 16;

  private static final Set<String> WHITESPACE_PRE_TOKENIZERS =
      Set.of("BertPreTokenizer", "Whitespace", "WhitespaceSplit");

  /** Whether the tokenizer's pre-tokenizer splits words at whitespace before anything else. */
  static boolean splitsAtWhitespace(byte[] tokenizerJson) {
    try {
      JsonNode pre = new ObjectMapper().readTree(tokenizerJson).path("pre_tokenizer");
      if (WHITESPACE_PRE_TOKENIZERS.contains(pre.path("type").asText())) {
        return true;
      }
      if (pre.path("type").asText().equals("Sequence")) {
        for (JsonNode step : pre.path("pretokenizers")) {
          if (WHITESPACE_PRE_TOKENIZERS.contains(step.path("type").asText())) {
            return true;
          }
        }
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * One text's encoding, from a whitespace-cut prefix when that is exact (see the class comment).
   */
  private Encoding encodeOne(String text) {
    if (prefixChars > 0 && text.length() > prefixChars) {
      int cut = prefixChars;
      int floor = prefixChars / 2;
      while (cut > floor && !Character.isWhitespace(text.charAt(cut))) {
        cut--;
      }
      if (cut > floor) {
        Encoding prefix = tokenizer.encode(text.substring(0, cut));
        if (prefix.exceedMaxLength()) {
          return prefix;
        }
      }
    }
    return tokenizer.encode(text);
  }

  /** The native tokenizer's encoding of the whole text, never from a prefix (tests). */
  long[] encodeWhole(String text) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return tokenizer.encode(text).getIds();
    }
  }

  public TokenizedBatch encode(List<String> texts) {
    return encode(texts, Cancellation.NEVER);
  }

  /** Token ids of each text; stops between texts when the caller has gone (CANCELLED). */
  public TokenizedBatch encode(List<String> texts, Cancellation cancellation) {
    long[][] ids = new long[texts.size()][];
    boolean[] truncated = new boolean[texts.size()];
    for (int i = 0; i < texts.size(); i++) {
      cancellation.throwIfCancelled();
      try (Lifetime.Lease lease = lifetime.acquire()) {
        Encoding encoding = encodeOne(texts.get(i));
        ids[i] = withEos(encoding.getIds());
        truncated[i] = encoding.exceedMaxLength();
      }
    }
    return new TokenizedBatch(ids, truncated);
  }

  /** Token ids and type ids of (query, document) pairs, truncated to the max length. */
  public long[][][] encodePairs(String query, List<String> documents, Cancellation cancellation) {
    long[][] ids = new long[documents.size()][];
    long[][] types = new long[documents.size()][];
    for (int i = 0; i < documents.size(); i++) {
      cancellation.throwIfCancelled();
      try (Lifetime.Lease lease = lifetime.acquire()) {
        Encoding encoding = tokenizer.encode(query, documents.get(i));
        ids[i] = encoding.getIds();
        types[i] = encoding.getTypeIds();
      }
    }
    return new long[][][] {ids, types};
  }

  /** The id of a token string, or -1 when the vocabulary has none. */
  public long tokenId(String token) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      long[] ids = tokenizer.encode(token, false, false).getIds();
      return ids.length == 1 ? ids[0] : -1;
    }
  }

  /** Tokens as strings, for the Tokenize RPC. */
  public String[] tokens(String text) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      Encoding encoding = tokenizer.encode(text);
      String[] tokens = encoding.getTokens();
      long[] ids = encoding.getIds();
      if (eosId < 0 || (ids.length > 0 && ids[ids.length - 1] == eosId)) {
        return tokens;
      }
      // The same EOS rule as encode(): appended, or in place of the last token at the max length.
      String[] out = Arrays.copyOf(tokens, Math.min(tokens.length + 1, maxLength));
      out[out.length - 1] = eosToken;
      return out;
    }
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
    try (Lifetime.Lease lease = lifetime.acquire()) {
      long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text, false);
      try {
        long[] ids = TokenizersLibrary.LIB.getTokenIds(encoding);
        return ids.length > maxLength ? Arrays.copyOf(ids, maxLength) : ids;
      } finally {
        TokenizersLibrary.LIB.deleteEncoding(encoding);
      }
    }
  }

  public String decodeToken(long id) {
    try (Lifetime.Lease lease = lifetime.acquire()) {
      return tokenizer.decode(new long[] {id}, false);
    }
  }

  /** Whether a pure-Java WordPiece fast path serves {@link #idsWithoutSpecialTokens}. */
  public boolean hasFastPath() {
    return fast != null;
  }

  public int maxLength() {
    return maxLength;
  }

  /** Refuses new calls, waits for the running ones, then frees the native tokenizer. */
  @Override
  public void close() {
    lifetime.close();
  }
}
