package dev.tenbin.encoder.testing;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A child JVM for shutdown tests: encodes documents with a model on several threads, prints {@code
 * ENCODING} once passes run, then either calls {@code System.exit(0)} after a while ({@code exit
 * MILLIS}) or waits to be sent SIGTERM ({@code wait}).
 *
 * <p>Arguments: {@code MODEL MODELS_DIR CACHE_DIR (exit MILLIS | wait)}.
 */
public final class EncodeUntilStopped {
  private EncodeUntilStopped() {}

  public static void main(String[] args) throws Exception {
    String model = args[0];
    EncoderCore core =
        new EncoderCore(EncoderServiceConfig.embedded(Path.of(args[1]), Path.of(args[2])));
    Random random = new Random(1);
    List<String> documents = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      StringBuilder text = new StringBuilder();
      for (int w = 20 + random.nextInt(120); w > 0; w--) {
        text.append(TinyModels.WORDS.get(random.nextInt(TinyModels.WORDS.size()))).append(' ');
      }
      documents.add(text.toString());
    }
    core.encodeDense(model, documents.subList(0, 4), false, 0, Cancellation.NEVER);
    for (int t = 0; t < 4; t++) {
      int offset = t * 150;
      Thread.ofPlatform()
          .name("client-" + t)
          .start(
              () -> {
                while (true) {
                  try {
                    for (int i = offset; i < offset + 150; i += 16) {
                      core.encodeDense(
                          model,
                          documents.subList(i, Math.min(offset + 150, i + 16)),
                          false,
                          0,
                          Cancellation.NEVER);
                    }
                  } catch (RuntimeException stopped) {
                    return; // UNAVAILABLE once the process drains
                  }
                }
              });
    }
    System.out.println("ENCODING");
    System.out.flush();
    if (args[3].equals("exit")) {
      Thread.sleep(Long.parseLong(args[4]));
      System.exit(0);
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}
