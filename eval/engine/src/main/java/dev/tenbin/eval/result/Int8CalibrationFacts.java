package dev.tenbin.eval.result;

import dev.tenbin.core.Sha256;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The int8 calibration an int8 variant's run quantized with, kept with its cell (the index
 * service's collection, and its calibration, is dropped after the run). Stored in full: one corpus
 * minimum and maximum per kept dimension (a few KiB of JSON for 384 dimensions), with a SHA-256
 * over them to compare calibrations at a glance, and how the values fared.
 *
 * <p>Written as the diagnostic {@code "int8_calibration"}: {@code {"dimensions": d, "sha256": hex,
 * "min": [...], "max": [...], "document_clip_rate": 0.0, "document_saturation_rate": x,
 * "query_clip_rate": y, "query_saturation_rate": z}}. Rates are shares of values (documents ×
 * dimensions, queries × dimensions). Clipped: outside the corpus range of its dimension (documents
 * never are: the ranges come from them). Saturated: at an end code, −128 or 127 (every dimension's
 * corpus minimum and maximum are, so the document rate is at least about 2 / documents; a clipped
 * query value is saturated too).
 *
 * @param min per-dimension corpus minimum, after truncation and (cosine) normalisation
 * @param max per-dimension corpus maximum
 */
public record Int8CalibrationFacts(
    List<Float> min,
    List<Float> max,
    double documentClipRate,
    double documentSaturationRate,
    double queryClipRate,
    double querySaturationRate) {
  public Int8CalibrationFacts {
    min = List.copyOf(min);
    max = List.copyOf(max);
  }

  /**
   * The calibration's fingerprint: SHA-256 (hex) of "min=v,v,...;max=v,v,..." in Float.toString.
   */
  public String sha256() {
    return Sha256.hex("min=" + join(min) + ";max=" + join(max));
  }

  /** The diagnostic's JSON form (see the class comment). */
  public Map<String, Object> asMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("dimensions", min.size());
    map.put("sha256", sha256());
    map.put("min", new ArrayList<>(min));
    map.put("max", new ArrayList<>(max));
    map.put("document_clip_rate", documentClipRate);
    map.put("document_saturation_rate", documentSaturationRate);
    map.put("query_clip_rate", queryClipRate);
    map.put("query_saturation_rate", querySaturationRate);
    return Collections.unmodifiableMap(map);
  }

  private static String join(List<Float> values) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      out.append(i == 0 ? "" : ",").append(values.get(i));
    }
    return out.toString();
  }
}
