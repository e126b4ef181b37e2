package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.RetrieverEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The models a job spec names, each with the field that names it, checked against what the services
 * know ({@link ModelCatalog}): an encoder model of a retriever ({@code dense:MODEL}, each model of
 * a {@code hybrid:}), of the candidate sets ({@code candidates.dense_model}) or of a reranker that
 * rescores with a retrieval model ({@code dense:MODEL}), and a cross-encoder reranker. A hub model
 * ({@code hub:OWNER/NAME@REVISION}) is fetched when the job runs and is not checked here; neither
 * is anything when a service cannot be asked.
 */
final class SpecModels {
  /** How many of a service's models a refusal lists. */
  private static final int LISTED = 12;

  /**
   * A model a spec names.
   *
   * @param field the spec field, e.g. {@code spec_yaml.retrievers[1]}
   * @param model the model id
   * @param crossEncoder whether the rerank service loads it (else the encoder)
   */
  record Named(String field, String model, boolean crossEncoder) {}

  private SpecModels() {}

  /** Every model {@code spec} names, in the spec's order. */
  static List<Named> of(JobSpec spec) {
    List<Named> named = new ArrayList<>();
    for (int i = 0; i < spec.retrievers().size(); i++) {
      RetrieverEntry entry = spec.retrievers().get(i);
      for (String model : entry.retriever().family().encoderModels(entry.retriever().model())) {
        named.add(new Named("spec_yaml.retrievers[" + i + "]", model, false));
      }
    }
    if (!spec.rerankers().isEmpty() && !spec.candidateDenseModel().isBlank()) {
      named.add(new Named("spec_yaml.candidates.dense_model", spec.candidateDenseModel(), false));
    }
    for (int i = 0; i < spec.rerankers().size(); i++) {
      String reranker = spec.rerankers().get(i);
      Optional<String> encoder = Families.rerankerEncoderModel(reranker);
      named.add(
          new Named("spec_yaml.rerankers[" + i + "]", encoder.orElse(reranker), encoder.isEmpty()));
    }
    return named;
  }

  /**
   * Refuses the first model of {@code spec} that a service {@code catalog} can ask does not know:
   * INVALID_ARGUMENT naming the field, with some of the models the service has.
   */
  static void check(JobSpec spec, ModelCatalog catalog) {
    List<Named> named = of(spec);
    Optional<Set<String>> encoder = null;
    Optional<Set<String>> rerank = null;
    for (Named model : named) {
      if (model.model().startsWith("hub:")) {
        continue;
      }
      Optional<Set<String>> known;
      if (model.crossEncoder()) {
        rerank = rerank == null ? catalog.crossEncoders() : rerank;
        known = rerank;
      } else {
        encoder = encoder == null ? catalog.encoderModels() : encoder;
        known = encoder;
      }
      if (known.isEmpty() || knows(known.get(), model.model())) {
        continue;
      }
      // A listing kept from before may miss a model added since: ask once more before refusing.
      catalog.refresh();
      encoder = model.crossEncoder() ? encoder : catalog.encoderModels();
      rerank = model.crossEncoder() ? catalog.crossEncoders() : rerank;
      known = model.crossEncoder() ? rerank : encoder;
      if (known.isEmpty() || knows(known.get(), model.model())) {
        continue;
      }
      throw new InvalidInputException(
          model.field(),
          model.field()
              + ": "
              + (model.crossEncoder()
                  ? "the rerank service knows no reranker "
                  : "the encoder service knows no model ")
              + SafeText.quote(model.model())
              + " (it has "
              + listed(known.get())
              + (model.crossEncoder()
                  ? "; or name hub:OWNER/NAME@REVISION, or rescore with " + Families.rerankUsages()
                  : "; a hub model is named hub:OWNER/NAME@REVISION")
              + ")");
    }
  }

  private static boolean knows(Set<String> ids, String model) {
    return ids.contains(model) || ids.contains(model.toLowerCase(Locale.ROOT));
  }

  private static String listed(Set<String> ids) {
    if (ids.isEmpty()) {
      return "none";
    }
    List<String> sorted = new ArrayList<>(new TreeSet<>(ids));
    String shown = String.join(", ", sorted.subList(0, Math.min(LISTED, sorted.size())));
    return sorted.size() > LISTED ? shown + ", … (" + sorted.size() + " in all)" : shown;
  }
}
