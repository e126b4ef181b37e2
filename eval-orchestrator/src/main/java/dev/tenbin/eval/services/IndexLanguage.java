package dev.tenbin.eval.services;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.LanguageSource;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;

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
  static final int MAX_ATTEMPTS = 4;

  /**
   * Resolves {@code language} (null: detect; blank: English) on the index behind {@code index};
   * {@code sample} gives the corpus text and is only read when detecting.
   */
  public static IndexLanguage resolve(
      Channel index, String language, java.util.function.IntFunction<String> sample) {
    ResolveLanguageRequest.Builder request = ResolveLanguageRequest.newBuilder();
    if (language != null) {
      // A blank code means English, as an empty language does in a collection spec.
      request.setLanguage(language.isBlank() ? "en" : language);
    } else {
      request.setTextSample(sample.apply(SAMPLE_CHARS));
    }
    ResolveLanguageResponse response = null;
    long backoffMillis = 200;
    for (int attempt = 1; response == null; attempt++) {
      try {
        response =
            IndexServiceGrpc.newBlockingStub(index)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .resolveLanguage(request.build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
          // A language code the index does not know: the caller's input, reported as such.
          throw new InvalidInputException("language", e.getStatus().getDescription());
        }
        // A restarting index: try again a few times, as the service clients do.
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt >= MAX_ATTEMPTS) {
          throw e;
        }
        sleep(backoffMillis, e);
        backoffMillis *= 2;
      }
    }
    return new IndexLanguage(
        response.getLanguage(), response.getSource() == LanguageSource.LANGUAGE_SOURCE_DETECTED);
  }

  private static void sleep(long millis, StatusRuntimeException cause) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw cause;
    }
  }
}
