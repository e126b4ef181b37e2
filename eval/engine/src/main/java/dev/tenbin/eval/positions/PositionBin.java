package dev.tenbin.eval.positions;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One of the 20 relative-position bins of a length bucket: the queries whose span centre falls in
 * it and their mean metrics (null when the bin is empty).
 *
 * @param bin 0..19, {@code min(19, floor(20 * position))}
 * @param queries evaluated queries in the bin
 * @param ndcgAt10 mean nDCG@10 over them, or null
 * @param recallAt100 mean recall@100 over them, or null
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record PositionBin(
    @JsonProperty("bin") int bin,
    @JsonProperty("queries") int queries,
    @JsonProperty("ndcg@10") Double ndcgAt10,
    @JsonProperty("recall@100") Double recallAt100) {}
