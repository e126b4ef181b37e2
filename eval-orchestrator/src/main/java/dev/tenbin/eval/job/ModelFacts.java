package dev.tenbin.eval.job;

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
    List<Integer> matryoshkaDimensions) {}
