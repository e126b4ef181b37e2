package dev.tenbin.eval.plan;

import dev.tenbin.core.InvalidInputException;
import java.util.List;

/**
 * A retrieval family ({@code bm25}, {@code dense:MODEL}, ...): parses its spec, checks its
 * variants, plans its cells and runs them, and names the systems it reports. Adding a family means
 * one implementation of this interface registered in {@code dev.tenbin.eval.family.Families} (the
 * plan layer below the families names none of them).
 */
public interface RetrievalFamily extends WorkFamily {
  /** How a spec names it, e.g. "dense:MODEL" (help texts and messages). */
  default String usage() {
    return name() + ":MODEL";
  }

  /** One sentence for help texts. */
  String description();

  /** Whether the spec carries a model ({@code dense:MODEL}); BM25 has none. */
  default boolean takesModel() {
    return true;
  }

  /** The system a run of {@code model} is reported as, e.g. "dense:bge-small-en-v1.5". */
  default String system(String model) {
    return takesModel() ? name() + ":" + model : name();
  }

  @Override
  default String label(Work work) {
    return system(work.model());
  }

  /**
   * Checks the model part of a spec ({@code dense:MODEL}'s MODEL) beyond being present; throws
   * naming {@code --retriever}. Most families take any model id.
   */
  default void checkModel(String model) {}

  /**
   * The encoder models a spec of this family with {@code model} runs ({@code dense:MODEL}: MODEL;
   * BM25: none), so they can be checked before the job runs.
   */
  default java.util.List<String> encoderModels(String model) {
    return takesModel() ? java.util.List.of(model) : java.util.List.of();
  }

  /**
   * Work whose cells this family's cells read (a hybrid's components), planned for {@code task};
   * the planner plans each once, before the work of {@link #plan}.
   */
  default List<Work> prerequisites(PlanContext planner, JobTask task, RetrieverEntry entry) {
    return List.of();
  }

  /** Checks one variant name of a job spec or of {@code --variant}; throws naming {@code field}. */
  default void checkVariant(String field, String variant) {
    if (!variant.equals("base")) {
      throw new InvalidInputException(field, usage() + " has only the variant base");
    }
  }

  /**
   * The variants {@code tenbin eval} runs given its {@code --variant} flags (shared by all its
   * retrievers): the ones of this family, or its default.
   */
  default List<String> evalVariants(List<String> flags) {
    return List.of("base");
  }

  /** Whether {@code FAMILY:MODEL} also names a bi-encoder reranker of candidate sets. */
  default boolean rescoresCandidates() {
    return false;
  }

  /** Plans the work item of {@code entry} on {@code task}: its cells and their fingerprints. */
  Work plan(PlanContext planner, JobTask task, RetrieverEntry entry);
}
