package dev.tenbin.integration.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.services.Services;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a job learns of an encoder model, and so what its cells' fingerprints cover. */
class EncoderModelFactsTest {
  @TempDir Path tmp;

  @Test
  void theWidthTheModelReallyOutputsIsPartOfTheCellIdentity() throws Exception {
    Path models = tmp.resolve("models");
    Path folder = TinyModels.dense(models, "tiny-open", false);
    ModelCard card = LocalModelDirectory.readCard(folder);
    // A card that leaves the dimension to the model: the job sees the graph's width.
    LocalModelDirectory.writeCard(
        folder,
        new ModelCard(
            card.id(),
            card.revision(),
            card.source(),
            card.onnxFile(),
            card.tokenizerFile(),
            card.pooling(),
            card.normalize(),
            0,
            List.of(),
            card.maxLength(),
            card.queryPrompt(),
            card.documentPrompt(),
            card.outputKind(),
            card.totalParameters(),
            card.activeParameters(),
            card.resolvedSha()));
    try (Services services = Services.connect(null, null, models, tmp.resolve("cache"))) {
      ModelFacts facts = JobLauncher.encoderFacts(services, "tiny-open");
      assertThat(facts.dimension()).isEqualTo(TinyModels.HIDDEN);
      assertThat(facts.identity()).containsEntry("dimension", Integer.toString(TinyModels.HIDDEN));
      assertThat(facts.matryoshkaDimensions()).isEmpty();
    }
  }
}
