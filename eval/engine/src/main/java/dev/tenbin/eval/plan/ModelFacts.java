package dev.tenbin.eval.plan;

import dev.tenbin.eval.provenance.TenbinVersion;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a job needs to know of a model before running it: the fields that identify its outputs (part
 * of every cell fingerprint), the versions stored with results, and facts for reports.
 *
 * @param identity id, revision, resolved SHA, dtype, prompts, max length, pooling, ...
 * @param versions stored with results: model_revision, model_dtype, onnxruntime_provider, ...
 * @param dimension output dimension (0 when not a dense model)
 * @param parameters total parameters (0 when unknown)
 * @param matryoshkaDimensions truncation dimensions the model was trained for
 */
public record ModelFacts(
    Map<String, String> identity,
    Map<String, String> versions,
    int dimension,
    long parameters,
    List<Integer> matryoshkaDimensions) {

  /**
   * The versions stored with a cell of this model; the ONNX Runtime release is the serving
   * process's when the service reports it, else this build's.
   */
  public Map<String, String> storedVersions() {
    Map<String, String> stored = new LinkedHashMap<>(versions);
    stored.putIfAbsent("onnxruntime_version", TenbinVersion.onnxRuntime());
    stored.put("tokenizers_version", TenbinVersion.tokenizers());
    return stored;
  }

  /**
   * The facts stored with a cell of this model: {@code cellDimension} (when > 0) and the
   * parameters.
   */
  public Map<String, Double> storedFacts(int cellDimension) {
    Map<String, Double> out = new LinkedHashMap<>();
    if (cellDimension > 0) {
      out.put("dimension", (double) cellDimension);
    }
    if (parameters > 0) {
      out.put("parameters", (double) parameters);
    }
    return out;
  }
}
