package dev.tenbin.index.dense;

/** How stored float vectors are compressed for a scan. */
public enum Quantization {
  NONE,
  /** Per-dimension affine int8, calibrated on the corpus. */
  INT8,
  /** Sign bits, Hamming similarity. */
  BINARY
}
