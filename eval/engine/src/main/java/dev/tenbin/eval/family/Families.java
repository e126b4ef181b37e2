package dev.tenbin.eval.family;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverSpec;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkFamily;
import dev.tenbin.eval.store.SystemRef;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The registry of retrieval families and of the other kinds of work. Specs are parsed, variants
 * checked, cells planned, work run and help texts written from here; a new family is one {@link
 * RetrievalFamily} added to {@link #RETRIEVAL}.
 */
public final class Families {
  /** Every retrieval family, in the order help texts list them. */
  private static final List<RetrievalFamily> RETRIEVAL =
      List.of(
          new Bm25Family(),
          new DenseFamily(),
          new LightFamily(),
          new SparseFamily("sparse", false),
          new SparseFamily("sparse-bm25", true),
          new MultiVectorFamily(),
          new HybridFamily());

  private static final CandidateSetsWork CANDIDATES = new CandidateSetsWork();
  private static final RerankWork RERANK = new RerankWork();

  private Families() {}

  /** Every retrieval family. */
  public static List<RetrievalFamily> retrieval() {
    return RETRIEVAL;
  }

  /** The retrieval family of that name ("dense", "sparse-bm25", ...). */
  public static Optional<RetrievalFamily> named(String name) {
    return RETRIEVAL.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  /**
   * The system a cell of cell family {@code family} and {@code model} stands for, named by its
   * retrieval family ("bm25" has no model); other cell families (light-sparse, rerank-dense,
   * external, ...) are "family:model".
   */
  public static SystemRef system(String family, String model) {
    return new SystemRef(
        family, model, named(family).map(f -> f.system(model)).orElse(family + ":" + model));
  }

  /** Parses {@code bm25}, {@code dense:MODEL}, ...; an unknown name lists the known ones. */
  public static RetrieverSpec parse(String text) {
    String value = text == null ? "" : text.trim();
    int colon = value.indexOf(':');
    String name = colon < 0 ? value : value.substring(0, colon);
    String model = colon < 0 ? "" : value.substring(colon + 1);
    Optional<RetrievalFamily> family = named(name);
    if (family.isPresent()
        && family.get().takesModel() == !model.isEmpty()
        && (colon < 0) == model.isEmpty()) {
      family.get().checkModel(model);
      return new RetrieverSpec(family.get(), model);
    }
    throw new InvalidInputException(
        "--retriever", "unknown retriever '" + text + "': expected " + usages());
  }

  /** "bm25, dense:MODEL, ... or multivector:MODEL". */
  public static String usages() {
    List<String> usages = RETRIEVAL.stream().map(RetrievalFamily::usage).toList();
    return String.join(", ", usages.subList(0, usages.size() - 1)) + " or " + usages.getLast();
  }

  /** One line per family: " dense:MODEL description". */
  public static String help() {
    return RETRIEVAL.stream()
        .map(f -> f.usage() + " (" + f.description() + ")")
        .collect(Collectors.joining("; "));
  }

  /**
   * The retrieval families whose {@code FAMILY:MODEL} also names a reranker, e.g. "dense:MODEL,
   * sparse:MODEL".
   */
  public static String rerankUsages() {
    return RETRIEVAL.stream()
        .filter(RetrievalFamily::rescoresCandidates)
        .map(RetrievalFamily::usage)
        .collect(Collectors.joining(", "));
  }

  /**
   * The encoder model of a reranker that rescores with a retrieval model ({@code dense:MODEL}:
   * MODEL); empty for a cross-encoder, which the rerank service runs itself.
   */
  public static Optional<String> rerankerEncoderModel(String reranker) {
    return RerankWork.biEncoder(reranker).map(f -> reranker.substring(reranker.indexOf(':') + 1));
  }

  /** The candidate-set work of a task. */
  public static WorkFamily candidates() {
    return CANDIDATES;
  }

  /** Plans a reranker over one candidate set of a task. */
  public static Work planRerank(
      PlanContext planner,
      JobTask task,
      String reranker,
      String kind,
      String candidatesFingerprint) {
    return RERANK.plan(planner, task, reranker, kind, candidatesFingerprint);
  }
}
