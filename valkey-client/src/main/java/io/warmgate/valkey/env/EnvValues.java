package io.warmgate.valkey.env;

import io.warmgate.contract.Durations;
import io.warmgate.contract.InvalidDurationException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the Kubernetes-style values of {@code WARMGATE_*} variables (durations, byte sizes,
 * numbers, booleans) for every warmgate component configured by environment. Each method throws
 * {@link IllegalArgumentException} naming the variable, showing the value and the expected form.
 */
public final class EnvValues {

  private static final Pattern SIZE =
      Pattern.compile("(\\d+)\\s*(|k|kB|K|KB|Ki|KiB|M|MB|Mi|MiB|G|GB|Gi|GiB)");

  private EnvValues() {}

  /**
   * Parses a duration of warmgate's one grammar ({@link Durations}): {@code 500ms}, {@code 60s},
   * {@code 4m}, {@code 1h30m}, {@code 1.5s}, or a bare {@code 0}; surrounding blanks are ignored.
   */
  public static Duration duration(String variable, String value) {
    try {
      return Durations.parse(value.trim());
    } catch (InvalidDurationException e) {
      throw invalid(variable, value, e.expected());
    }
  }

  /** Parses a byte size: a count with an optional unit, {@code 524288}, {@code 512Ki}, {@code 512KiB}, {@code 1MB}. */
  public static long bytes(String variable, String value) {
    Matcher m = SIZE.matcher(value.trim());
    if (!m.matches()) {
      throw invalid(variable, value, "a byte size such as 524288, 512KiB, 512Ki or 1MB");
    }
    long factor = switch (m.group(2)) {
      case "" -> 1L;
      case "k", "kB", "K", "KB" -> 1_000L;
      case "Ki", "KiB" -> 1L << 10;
      case "M", "MB" -> 1_000_000L;
      case "Mi", "MiB" -> 1L << 20;
      case "G", "GB" -> 1_000_000_000L;
      default -> 1L << 30;
    };
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), factor);
    } catch (ArithmeticException | NumberFormatException e) {
      throw invalid(variable, value, "a byte size below 8 EiB");
    }
  }

  public static long positiveLong(String variable, String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw invalid(variable, value, "a whole number greater than 0, such as 100000");
  }

  public static boolean bool(String variable, String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid(variable, value, "true or false");
    };
  }

  public static IllegalArgumentException invalid(String variable, String value, String expected) {
    return new IllegalArgumentException(
        variable + "='" + value + "' is invalid: expected " + expected);
  }
}
