package dev.tenbin.eval.cache;

import java.util.List;

/**
 * The encodings of one corpus slice, in input order, with what encoding the slice took.
 *
 * @param values one encoding per input text
 * @param encodeNanos the time the slice's encode took, measured when it was encoded (by this call,
 *     or earlier when {@code encodedBefore})
 * @param encodedBefore whether the slice was read whole from the cache, encoded by an earlier run
 */
public record SliceEncoding<T>(List<T> values, long encodeNanos, boolean encodedBefore) {}
