package dev.tenbin.encoder.testing;

import dev.tenbin.model.onnx.OnnxEnvironment;

/** A child JVM for tests: prints whether ONNX Runtime's own shutdown hook could be taken out. */
public final class PrintOrtHookRemoved {
  private PrintOrtHookRemoved() {}

  public static void main(String[] args) {
    System.out.println(OnnxEnvironment.ortShutdownHookRemoved());
  }
}
