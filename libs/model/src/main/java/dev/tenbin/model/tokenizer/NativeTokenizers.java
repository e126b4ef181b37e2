package dev.tenbin.model.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Map;

/**
 * The one place a native Hugging Face tokenizer (DJL) is made: from the bytes of a {@code
 * tokenizer.json}, never by hub name, after {@link DjlSettings} are applied.
 */
final class NativeTokenizers {
  private NativeTokenizers() {}

  /**
   * A tokenizer of {@code tokenizerJson} with DJL's {@code options} ({@code addSpecialTokens},
   * {@code truncation}, {@code padding}, {@code maxLength}, ...).
   */
  static HuggingFaceTokenizer open(byte[] tokenizerJson, Map<String, String> options)
      throws IOException {
    DjlSettings.apply();
    return HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerJson), options);
  }
}
