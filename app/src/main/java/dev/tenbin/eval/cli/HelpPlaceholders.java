package dev.tenbin.eval.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One placeholder vocabulary for every {@code tenbin} help text. An option that names its own
 * placeholder ({@code paramLabel}) keeps it; any other gets one from what it takes, instead of
 * picocli's {@code <fieldName>}: a number is {@code N}, a {@code --*-dir} or {@code --*-root} is
 * {@code DIR}, a {@code --*-endpoint} is {@code HOST:PORT}, a {@code --*model} is {@code MODEL},
 * another path is {@code FILE}, anything else the option's name in capitals ({@code --similarity
 * SIMILARITY}). Applied once to the whole command tree, so new commands follow it too.
 */
final class HelpPlaceholders {
  private static final Set<Class<?>> NUMBERS =
      Set.of(
          int.class,
          long.class,
          double.class,
          float.class,
          short.class,
          Integer.class,
          Long.class,
          Double.class,
          Float.class,
          Short.class);

  private HelpPlaceholders() {}

  /**
   * Gives every option of {@code command} and its subcommands a placeholder from the vocabulary.
   */
  static void apply(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    for (OptionSpec option : new ArrayList<>(spec.options())) {
      if (option.arity().max() == 0
          || !option.paramLabel().startsWith("<")
          || option.group() != null) {
        continue;
      }
      spec.remove(option);
      spec.addOption(option.toBuilder().paramLabel(placeholder(option)).build());
    }
    command.getSubcommands().values().forEach(HelpPlaceholders::apply);
  }

  /** The placeholder of an option that names none. */
  static String placeholder(OptionSpec option) {
    String name = option.longestName().replaceFirst("^-+", "");
    Class<?> type = option.auxiliaryTypes().length > 0 ? option.auxiliaryTypes()[0] : option.type();
    if (NUMBERS.contains(type)) {
      return "N";
    }
    if (name.endsWith("-dir") || name.endsWith("-root")) {
      return "DIR";
    }
    if (name.endsWith("endpoint")) {
      return "HOST:PORT";
    }
    if (name.endsWith("model")) {
      return "MODEL";
    }
    if (Path.class.isAssignableFrom(type)) {
      return "FILE";
    }
    return name.toUpperCase(Locale.ROOT).replace('-', '_');
  }
}
