package dev.tenbin.eval.job;

import java.util.Optional;
import java.util.Set;

/**
 * The models the services a job will use know, as they list them (loading nothing): what {@link
 * JobAdmission} checks a spec's models against at submit, so that a job naming a model no service
 * can load fails its {@code SubmitJob} call instead of its run.
 */
public interface ModelCatalog {
  /**
   * The ids of the encoder's models (built-in and local ones it may load), or empty when the
   * encoder cannot be asked now (the job then finds out when it runs).
   */
  Optional<Set<String>> encoderModels();

  /**
   * The ids of the rerank service's cross-encoders (those of its models folder it may load), or
   * empty when it cannot be asked now.
   */
  Optional<Set<String>> crossEncoders();

  /**
   * Asks the services again at the next call instead of using what was listed before: a model
   * missing from a kept listing is looked for in a new one before it is refused.
   */
  default void refresh() {}

  /** A catalog that cannot tell: nothing is checked. */
  ModelCatalog UNKNOWN =
      new ModelCatalog() {
        @Override
        public Optional<Set<String>> encoderModels() {
          return Optional.empty();
        }

        @Override
        public Optional<Set<String>> crossEncoders() {
          return Optional.empty();
        }
      };
}
