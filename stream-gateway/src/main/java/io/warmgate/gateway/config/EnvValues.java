package io.warmgate.gateway.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the Kubernetes-style values of {@code WARMGATE_*} variables, as the cache agent does. */
final class EnvValues {

  private static final Pattern DURATION_PART =
      Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  private EnvValues() {}

  /**
   * Parses a Go/Kubernetes duration such as {@code 500ms}, {@code 60s}, {@code 4m},
   * {@code 1h30m} or {@code 1.5s}; a bare {@code 0} is zero.
   *
   * @throws IllegalArgumentException naming the variable, the value and the expected form
   */
  static Duration duration(String variable, String value) {
    String text = value.trim();
    if (text.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = DURATION_PART.matcher(text);
    BigDecimal nanos = BigDecimal.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(unitNanos(m.group(2))));
      end = m.end();
    }
    if (end == 0 || end != text.length()) {
      throw invalid(variable, value, "a duration such as 500ms, 60s, 4m or 1h30m");
    }
    try {
      return Duration.ofNanos(nanos.longValueExact());
    } catch (ArithmeticException e) {
      throw invalid(variable, value, "a duration shorter than 292 years");
    }
  }

  /** Parses a positive whole number. */
  static long positiveLong(String variable, String value) {
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed > 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below with the expected form
    }
    throw invalid(variable, value, "a whole number greater than 0");
  }

  /** Parses {@code true} or {@code false}, in any case. */
  static boolean bool(String variable, String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid(variable, value, "true or false");
    };
  }

  /** The error for a malformed value: names the variable, shows the value, says what is expected. */
  static IllegalArgumentException invalid(String variable, String value, String expected) {
    return new IllegalArgumentException(
        variable + "=\"" + value + "\" is not valid: set it to " + expected);
  }

  private static BigDecimal unitNanos(String unit) {
    return BigDecimal.valueOf(switch (unit) {
      case "ns" -> 1L;
      case "us", "µs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      default -> 3_600_000_000_000L;
    });
  }
}
