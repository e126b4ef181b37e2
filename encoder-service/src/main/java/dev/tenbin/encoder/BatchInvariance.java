package dev.tenbin.encoder;

import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.model.tokenizer.TextTokenizer;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Whether a model's outputs are batch-invariant on its execution provider, probed when it loads:
 * three fixed texts of different lengths are run each alone, then inside a pass of two inputs and a
 * pass of four (other texts, other order, padded to a longer input), and every output of a text's
 * own tokens is compared bit for bit with its output alone. A model whose bits differ is encoded
 * {@linkplain EncodingPolicy#ONE_TEXT_PER_PASS one text per pass}. The probe runs wherever the
 * model runs (CPU or CUDA), through the same forward function the batcher uses.
 *
 * @param invariant whether every output inside a mixed pass equalled the text's output alone
 * @param policy the encoding policy that follows
 * @param compared what was compared, in words (texts, their tokens, the passes)
 * @param comparedOutputs texts-in-a-mixed-pass compared with the same text alone
 * @param differingOutputs how many of them differed in at least one bit
 * @param maxAbsDifference the largest |alone − mixed| of one value (0 when invariant)
 */
public record BatchInvariance(
    boolean invariant,
    EncodingPolicy policy,
    String compared,
    int comparedOutputs,
    int differingOutputs,
    double maxAbsDifference) {

  /** The probe texts: short, medium and long, so mixed passes pad the shorter ones. */
  static final List<String> PROBE_TEXTS =
      List.of(
          "Batch probe.",
          "Tenbin encodes this sentence alone and beside other texts to see whether its vector"
              + " depends on the company it keeps.",
          "A model is batch-invariant when the vector of a text is the same, bit for bit, whether"
              + " the text runs through the network alone or together with other texts of other"
              + " lengths, padded to the longest of them. Quantized graphs often are not: they"
              + " scale their activations by the range seen in the whole pass, so one text's"
              + " numbers move with its neighbours.");

  /** The mixed passes, as indexes into {@link #PROBE_TEXTS}: two inputs, then four. */
  private static final int[][] MIXED_PASSES = {{0, 1}, {2, 0, 1, 0}};

  /** Probes the model behind {@code forward} with texts tokenized by {@code tokenizer}. */
  public static BatchInvariance probe(
      TextTokenizer tokenizer, Function<long[][], OnnxModel.Output> forward) {
    long[][] ids = tokenizer.encode(PROBE_TEXTS).ids();
    float[][] alone = new float[ids.length][];
    for (int i = 0; i < ids.length; i++) {
      alone[i] = ownTokens(forward.apply(new long[][] {ids[i]}), 0, ids[i].length);
    }
    int compared = 0;
    int differing = 0;
    double largest = 0;
    StringBuilder passes = new StringBuilder();
    for (int[] pass : MIXED_PASSES) {
      long[][] batch = new long[pass.length][];
      int longest = 0;
      for (int j = 0; j < pass.length; j++) {
        batch[j] = ids[pass[j]];
        longest = Math.max(longest, batch[j].length);
      }
      OnnxModel.Output output = forward.apply(batch);
      for (int j = 0; j < pass.length; j++) {
        float[] mixed = ownTokens(output, j, batch[j].length);
        float[] reference = alone[pass[j]];
        compared++;
        if (!Arrays.equals(mixed, reference)) {
          differing++;
          largest = Math.max(largest, largestDifference(mixed, reference));
        }
      }
      passes
          .append(passes.isEmpty() ? "" : " and ")
          .append(pass.length)
          .append(" inputs padded to ")
          .append(longest);
    }
    String description =
        ids.length
            + " texts of "
            + ids[0].length
            + ", "
            + ids[1].length
            + " and "
            + ids[2].length
            + " tokens, each alone against inside passes of "
            + passes
            + " tokens: "
            + compared
            + " outputs compared bit for bit, "
            + differing
            + " differ";
    boolean invariant = differing == 0;
    return new BatchInvariance(
        invariant,
        invariant ? EncodingPolicy.BATCHED : EncodingPolicy.ONE_TEXT_PER_PASS,
        description,
        compared,
        differing,
        largest);
  }

  /** The values of one input's own tokens (padding left out), row-major. */
  private static float[] ownTokens(OnnxModel.Output output, int index, int tokens) {
    int offset = output.offset(index, 0);
    return Arrays.copyOfRange(output.values(), offset, offset + tokens * output.width());
  }

  private static double largestDifference(float[] a, float[] b) {
    if (a.length != b.length) {
      return Double.POSITIVE_INFINITY;
    }
    double largest = 0;
    for (int i = 0; i < a.length; i++) {
      largest = Math.max(largest, Math.abs((double) a[i] - b[i]));
    }
    return largest;
  }
}
