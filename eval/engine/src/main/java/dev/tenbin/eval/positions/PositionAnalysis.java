package dev.tenbin.eval.positions;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The PosIR position analysis of one run (one stored cell): per document-length bucket, the metrics
 * per relative-position bin of the evidence, and how much they vary. This is the shape printed by
 * {@code tenbin eval --positions --json} under {@code "positions"}, stored with the cell and loaded
 * into the warehouse's {@code positions} table.
 *
 * @param tokenizer the tokenizer that counted document lengths (a built-in model id or a {@code
 *     tokenizer.json} path), the same for every system
 * @param lengthReference the task whose documents' lengths set the buckets (this task's own name
 *     when it borrows none)
 * @param minCount bins with fewer queries are left out of PSI, slope and correlations
 * @param reference the system whose bin profile the {@code reference_pearson} values compare with,
 *     or null
 * @param buckets the length buckets in order, [0, 512], (512, 1024], ..., the last open-ended
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record PositionAnalysis(
    @JsonProperty("tokenizer") String tokenizer,
    @JsonProperty("length_reference") String lengthReference,
    @JsonProperty("min_count") int minCount,
    @JsonProperty("reference") String reference,
    @JsonProperty("buckets") List<PositionBucket> buckets) {
  /** Default for {@link #minCount()}. */
  public static final int DEFAULT_MIN_COUNT = 5;

  /** Width of a length bucket in tokens. */
  public static final int BUCKET_TOKENS = 512;

  /** Buckets of the analysis: four of 512 tokens, then one open-ended. */
  public static final int BUCKETS = 5;

  public PositionAnalysis {
    buckets = List.copyOf(buckets);
  }
}
