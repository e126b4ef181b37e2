package dev.tenbin.eval.cache;

/**
 * A cached payload whose bytes do not form a value of its kind (a damaged or foreign record). The
 * cache treats such a record as missing and encodes the text again.
 */
final class CorruptPayloadException extends RuntimeException {
  CorruptPayloadException(String message) {
    super(message);
  }
}
