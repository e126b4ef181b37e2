package dev.tenbin.eval.services;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.index.v1.LanguageSource;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;

/**
 * The analyzer language of a collection, as the index service resolves it ({@code
 * ResolveLanguage}): a given code normalised, or the language detected from the first {@value
 * #SAMPLE_CHARS} characters of the corpus.
 *
 * @param code the normalised language code
 * @param detected whether it was detected (false: the caller gave it)
 */
public record IndexLanguage(String code, boolean detected) {
  /** How much corpus text the detection reads. */
  public static final int SAMPLE_CHARS = 200_000;

  /** Calls made before an UNAVAILABLE index fails the lookup. */
  public static final int MAX_ATTEMPTS = 4;

  /**
   * Resolves {@code language} (null: detect; blank: English) on the index {@code index} calls;
   * {@code sample} gives the corpus text and is only read when detecting.
   */
  public static IndexLanguage resolve(
      IndexClient index, String language, java.util.function.IntFunction<String> sample) {
    ResolveLanguageRequest.Builder request = ResolveLanguageRequest.newBuilder();
    if (language != null) {
      // A blank code means English, as an empty language does in a collection spec.
      request.setLanguage(language.isBlank() ? "en" : language);
    } else {
      request.setTextSample(sample.apply(SAMPLE_CHARS));
    }
    ResolveLanguageResponse response;
    try {
      // A restarting index is asked again a few times, as every client call is.
      response =
          index
              .withPolicy(new CallPolicy(Duration.ofSeconds(60), MAX_ATTEMPTS))
              .resolveLanguage(request.build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
        // A language code the index does not know: the caller's input, reported as such.
        throw new InvalidInputException("language", e.getStatus().getDescription());
      }
      throw e;
    }
    return new IndexLanguage(
        response.getLanguage(), response.getSource() == LanguageSource.LANGUAGE_SOURCE_DETECTED);
  }
}
