package dev.tenbin.eval.cli;

import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.scoring.beir.DatasetException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tenbin} command: evaluation, metrics and the services, as subcommands; the eval
 * service's jobs under {@code tenbin job submit|list|status|watch|cancel|results}. The flat names
 * of before ({@code tenbin submit}, ...) still work as hidden aliases that print a one-line
 * deprecation note to stderr.
 *
 * <p>Building picocli's model of a command reads its annotations and fields by reflection and loads
 * the classes of its options; for the whole tree that is most of a short command's start-up. {@link
 * #main} therefore builds only the subcommand its first argument names, and none for {@code
 * --version} alone ({@link #commandLine(String...)}); the help, a mistyped name and anything else
 * get the whole tree ({@link #commandLine()}).
 */
@Command(
    name = "tenbin",
    mixinStandardHelpOptions = true,
    versionProvider = TenbinCli.Version.class,
    description = "Weighs retrieval systems against each other under identical conditions.",
    footer = {
      "",
      "From a checkout, the ./tenbin launcher also runs:",
      "  test    the test suite (what CI runs)",
      "  fuzz    one fuzz target for a while (./tenbin fuzz --list names them)",
      "  jmh     the JMH benchmarks of the index scans",
      "  bench   benchmarks: bm25, encoder, rerank, index, index-scaling, metrics",
      "  drill   fault drills against real service processes"
    })
public final class TenbinCli implements Runnable {
  /** Exit code for bad input: a wrong flag, a missing or corrupt file. */
  public static final int EXIT_USAGE = 2;

  /** Exit code for a failure inside Tenbin or a service it called. */
  public static final int EXIT_FAILURE = 1;

  /** The subcommands, in the order the help lists them. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          EvalCommand.class,
          MetricsCommand.class,
          RunCommand.class,
          JobCommands.Jobs.class,
          TasksCommand.class,
          WarehouseCommand.class,
          ExportCommand.class,
          ImportRunCommand.class,
          ReportCommand.class,
          ParityCommand.class,
          ModelsCommand.class,
          CandidatesCommand.class,
          NanoCommand.class,
          PosirCommand.class,
          LightCommand.class,
          ServeCommand.class);

  /** The old flat job commands, each now {@code tenbin job VERB}. */
  static final Map<String, Supplier<Object>> DEPRECATED_JOB_ALIASES =
      Map.of(
          "submit", JobCommands.Submit::new,
          "status", JobCommands.Status::new,
          "watch", JobCommands.Watch::new,
          "cancel", JobCommands.Cancel::new,
          "results", JobCommands.Results::new);

  /**
   * {@code --version}: from {@link TenbinVersion}, the version, source commit and image tag the
   * build stamped, so a CLI can be matched to an image.
   */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"tenbin " + TenbinVersion.describe()};
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /**
   * The whole command tree with Tenbin's error handling: one clear message, a non-zero exit, no
   * trace.
   */
  public static CommandLine commandLine() {
    return commandLine(sub -> true);
  }

  /**
   * The command line that executes {@code args} as {@link #commandLine()} would: when the first
   * argument names a subcommand (or an old flat job name), a tree holding only that subcommand,
   * since nothing else of the tree can take part in parsing or running them; for {@code --version}
   * alone, no subcommand; otherwise the whole tree (the top-level help lists every subcommand, and
   * a mistyped name gets suggestions from all of them).
   */
  public static CommandLine commandLine(String... args) {
    if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
      return commandLine(sub -> false);
    }
    String first = args.length == 0 ? "" : args[0];
    boolean named =
        DEPRECATED_JOB_ALIASES.containsKey(first)
            || SUBCOMMANDS.stream().anyMatch(sub -> nameOf(sub).equals(first));
    return named ? commandLine(first::equals) : commandLine();
  }

  private static String nameOf(Class<?> subcommand) {
    return subcommand.getAnnotation(Command.class).name();
  }

  private static CommandLine commandLine(Predicate<String> wanted) {
    CommandLine cli = new CommandLine(new TenbinCli());
    for (Class<?> subcommand : SUBCOMMANDS) {
      if (wanted.test(nameOf(subcommand))) {
        cli.addSubcommand(subcommand);
      }
    }
    DEPRECATED_JOB_ALIASES.forEach(
        (verb, command) -> {
          if (wanted.test(verb)) {
            CommandLine alias = new CommandLine(command.get());
            alias.getCommandSpec().usageMessage().hidden(true);
            cli.addSubcommand(verb, alias);
          }
        });
    cli.setExecutionStrategy(
        parseResult -> {
          if (parseResult.hasSubcommand()
              && DEPRECATED_JOB_ALIASES.containsKey(
                  parseResult.subcommand().commandSpec().name())) {
            String verb = parseResult.subcommand().commandSpec().name();
            cli.getErr()
                .println(
                    "tenbin: 'tenbin " + verb + "' is deprecated; use 'tenbin job " + verb + "'");
            cli.getErr().flush();
          }
          return new CommandLine.RunLast().execute(parseResult);
        });
    HelpPlaceholders.apply(cli);
    // `tenbin serve SERVICE --port N ...`: everything after the service name is the service's own.
    CommandLine serve = cli.getSubcommands().get("serve");
    if (serve != null) {
      serve.setStopAtPositional(true);
    }
    return withErrorHandling(cli);
  }

  /**
   * Tenbin's error handling on a command line: a failure prints one line, "tenbin: " and what went
   * wrong (its trace too when TENBIN_DEBUG is set), and exits {@value #EXIT_USAGE} for bad input,
   * {@value #EXIT_FAILURE} otherwise. The tooling's commands ({@code tenbin bench}, {@code tenbin
   * drill}) run with it as well.
   */
  public static CommandLine withErrorHandling(CommandLine cli) {
    cli.setExecutionExceptionHandler(
        (failure, commandLine, parseResult) -> {
          commandLine.getErr().println("tenbin: " + describe(failure));
          if (System.getenv("TENBIN_DEBUG") != null) {
            failure.printStackTrace(commandLine.getErr());
          }
          return exitCodeOf(failure);
        });
    return cli;
  }

  /** The status codes with which a service refuses a request and says why. */
  private static final Set<Status.Code> SERVICE_REFUSALS =
      EnumSet.of(
          Status.Code.INVALID_ARGUMENT,
          Status.Code.NOT_FOUND,
          Status.Code.ALREADY_EXISTS,
          Status.Code.FAILED_PRECONDITION,
          Status.Code.OUT_OF_RANGE,
          Status.Code.PERMISSION_DENIED,
          Status.Code.UNAUTHENTICATED,
          Status.Code.RESOURCE_EXHAUSTED);

  static String describe(Throwable failure) {
    if (failure instanceof StatusRuntimeException status) {
      Status.Code code = status.getStatus().getCode();
      String description = status.getStatus().getDescription();
      boolean explained = description != null && !description.isBlank();
      // A refusal the service explains reads as its explanation, the code after it for scripts;
      // a transport failure says that the call failed, and how.
      return explained && SERVICE_REFUSALS.contains(code)
          ? description + " (" + code + ")"
          : "service call failed: " + code + (explained ? ": " + description : "");
    }
    if (failure instanceof UncheckedIOException io && io.getCause() != null) {
      Throwable cause = io.getCause();
      String reason =
          cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
      return failure.getMessage().contains(reason)
          ? failure.getMessage()
          : failure.getMessage() + " (" + reason + ")";
    }
    String message = failure.getMessage();
    return message == null ? failure.getClass().getSimpleName() : message;
  }

  static int exitCodeOf(Throwable failure) {
    if (failure instanceof DatasetException
        || failure instanceof TenbinException
        || failure instanceof IllegalArgumentException) {
      return EXIT_USAGE;
    }
    if (failure instanceof StatusRuntimeException status) {
      return switch (status.getStatus().getCode()) {
        case INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, PERMISSION_DENIED ->
            EXIT_USAGE;
        default -> EXIT_FAILURE;
      };
    }
    return EXIT_FAILURE;
  }

  public static void main(String[] args) {
    // Services log what operators read (job ids, listening addresses) at INFO; a command someone
    // runs at a terminal keeps its stderr to its own progress and to warnings.
    boolean serving = args.length > 0 && args[0].equals("serve");
    prepareConsole(serving);
    System.exit(commandLine(args).execute(args));
  }

  /**
   * The console of a command run from a terminal: library logging at WARN unless {@code serving}
   * (services log what operators read at INFO) or verbose, and the JVM's own console set up as
   * {@link dev.tenbin.rpc.QuietConsole} does. The tooling's mains call it too.
   */
  public static void prepareConsole(boolean serving) {
    if (!serving && !dev.tenbin.rpc.QuietConsole.verbose()) {
      dev.tenbin.rpc.ProcessLogging.threshold(org.slf4j.event.Level.WARN);
    }
    dev.tenbin.rpc.QuietConsole.apply();
  }
}
