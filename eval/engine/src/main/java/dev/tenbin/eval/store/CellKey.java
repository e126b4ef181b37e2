package dev.tenbin.eval.store;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.tenbin.eval.result.RankingMode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one cell of a job evaluates: a system, in one efficiency variant and mode, on one task of a
 * benchmark.
 *
 * <p>Stored (and hashed into fingerprints) as one flat object: the task's {@code benchmark}, {@code
 * dataset}, {@code task}, {@code language} and {@code domain}, the system's {@code model} and
 * {@code family}, the {@code variant} and the {@code mode}'s wire name; a stored cell also carries
 * the system's {@code name} as {@code system}, which the fingerprint leaves out ({@link
 * #identityFields}). A cell stored before cells carried it is named by {@link SystemRef#stored}.
 *
 * @param task the task and the benchmark it belongs to
 * @param system the system evaluated
 * @param variant "base", "int8", "binary_rescore", "truncate256", "sparse_q64_d256", ...
 * @param mode over the whole corpus or a stored candidate set
 */
public record CellKey(TaskRef task, SystemRef system, String variant, RankingMode mode) {
  public CellKey {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(variant, "variant");
    Objects.requireNonNull(mode, "mode");
  }

  /**
   * The key as fingerprints hash it: the nine fields cells were always keyed by (the system's name
   * is derived from them and left out, so fingerprints do not depend on how systems are named).
   */
  public Map<String, String> identityFields() {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("benchmark", task.benchmark());
    fields.put("dataset", task.dataset());
    fields.put("task", task.task());
    fields.put("language", task.language());
    fields.put("domain", task.domain());
    fields.put("model", system.model());
    fields.put("family", system.family());
    fields.put("variant", variant);
    fields.put("mode", mode.wireName());
    return fields;
  }

  /** The stored form: {@link #identityFields} and the system's name. */
  @JsonValue
  Map<String, String> stored() {
    Map<String, String> fields = identityFields();
    fields.put("system", system.name());
    return fields;
  }

  /** Reads the stored form; a key without {@code system} is named by {@link SystemRef#stored}. */
  @JsonCreator
  static CellKey fromStored(
      @JsonProperty("benchmark") String benchmark,
      @JsonProperty("dataset") String dataset,
      @JsonProperty("task") String task,
      @JsonProperty("language") String language,
      @JsonProperty("domain") String domain,
      @JsonProperty("model") String model,
      @JsonProperty("family") String family,
      @JsonProperty("variant") String variant,
      @JsonProperty("mode") RankingMode mode,
      @JsonProperty("system") String system) {
    SystemRef named =
        system == null ? SystemRef.stored(family, model) : new SystemRef(family, model, system);
    return new CellKey(
        new TaskRef(benchmark, dataset, task, language, domain), named, variant, mode);
  }

  /**
   * A short human label, e.g. "dense:bge-small-en-v1.5/int8 on NanoBEIR-en/NanoSciFact
   * (retrieval)".
   */
  public String label() {
    return system.name()
        + "/"
        + variant
        + " on "
        + task.benchmark()
        + "/"
        + task.task()
        + " ("
        + mode.wireName()
        + ")";
  }
}
