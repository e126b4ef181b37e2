package dev.tenbin.drill;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A duration option: a whole number with a unit ({@code 500ms}, {@code 90s}, {@code 30m}, {@code
 * 1h}) or an ISO-8601 duration ({@code PT1H30M}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern AMOUNT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    Matcher matcher = AMOUNT.matcher(value.trim());
    if (matcher.matches()) {
      long amount = Long.parseLong(matcher.group(1));
      return switch (matcher.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    }
    try {
      return Duration.parse(value.trim());
    } catch (DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration such as 90s, 3m or 1h");
    }
  }

  /** {@code duration} as the options write it: 75s, 3m, 1h, 1500ms. */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1_000 == 0) {
      return millis / 1_000 + "s";
    }
    return millis + "ms";
  }
}
