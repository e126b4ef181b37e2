package dev.tenbin.checks;

import picocli.CommandLine;

/** The command line {@code tenbin serve SERVICE} hands its options to. */
final class ServerCommands {
  private ServerCommands() {}

  /** The server command of {@code service}, or null for a name that is none. */
  static CommandLine of(String service) {
    return switch (service) {
      case "encoder" -> new CommandLine(new dev.tenbin.encoder.server.EncoderServer());
      case "index" -> new CommandLine(new dev.tenbin.index.server.IndexServer());
      case "rerank" -> new CommandLine(new dev.tenbin.rerank.server.RerankServer());
      case "eval" -> new CommandLine(new dev.tenbin.eval.server.EvalServer());
      default -> null;
    };
  }
}
