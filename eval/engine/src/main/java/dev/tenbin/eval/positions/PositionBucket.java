package dev.tenbin.eval.positions;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One document-length bucket of a position analysis (PosIR): its 20 bins and the statistics of
 * nDCG@10 over them. Statistics use the bins with at least {@code min_count} queries and are null
 * when fewer than two such bins exist (PSI: when the largest bin mean is 0).
 *
 * @param minTokens exclusive lower bound in tokens (0 for the first bucket, which includes 0)
 * @param maxTokens inclusive upper bound, or null for the open-ended last bucket
 * @param queries evaluated queries in the bucket
 * @param bins the 20 bins, bin 0 first, empty ones included
 * @param psi position sensitivity index, {@code 1 - min/max} of the bin means
 * @param slope least-squares slope of the bin means over the bin centres ((bin + 0.5) / 20)
 * @param pearson Pearson correlation of bin index and bin mean
 * @param spearman Spearman correlation of bin index and bin mean
 * @param kendall Kendall's tau-b of bin index and bin mean
 * @param referencePearson Pearson correlation of this bucket's bin profile with the reference
 *     system's (over bins both count), or null without a reference
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record PositionBucket(
    @JsonProperty("min_tokens") int minTokens,
    @JsonProperty("max_tokens") Integer maxTokens,
    @JsonProperty("queries") int queries,
    @JsonProperty("bins") List<PositionBin> bins,
    @JsonProperty("psi") Double psi,
    @JsonProperty("slope") Double slope,
    @JsonProperty("pearson") Double pearson,
    @JsonProperty("spearman") Double spearman,
    @JsonProperty("kendall") Double kendall,
    @JsonProperty("reference_pearson") Double referencePearson) {
  public PositionBucket {
    bins = List.copyOf(bins);
  }
}
