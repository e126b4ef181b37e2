/**
 * Compressed codes of dense vectors and their scores: per-dimension affine int8 calibrated on the
 * corpus ({@link dev.tenbin.index.quantize.Int8Quantizer}, {@link
 * dev.tenbin.index.quantize.Int8Calibration}) and sign bits scored by Hamming similarity ({@link
 * dev.tenbin.index.quantize.BinaryQuantizer}). Both are derived from the stored float vectors.
 */
package dev.tenbin.index.quantize;
