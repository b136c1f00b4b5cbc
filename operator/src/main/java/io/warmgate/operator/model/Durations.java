package io.warmgate.operator.model;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes-style durations as used in {@link CachePolicySpec}: one or more integer amounts with a
 * unit, largest first or not, such as {@code 500ms}, {@code 60s}, {@code 4m} or {@code 1h30m}.
 *
 * <p>The same syntax is accepted by the CEL {@code duration()} function the CRD uses for its
 * cross-field rules, so what the API server admits always parses here.
 */
public final class Durations {

  /** The OpenAPI pattern every duration field carries. */
  public static final String PATTERN = "^([0-9]{1,9}(ms|s|m|h))+$";

  /** The longest duration string the CRD admits; keeps the CEL cost estimate small. */
  public static final int MAX_LENGTH = 32;

  /** Go's and CEL's longest duration (2562047h47m16.854775807s); the API server refuses longer. */
  public static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  private static final Pattern WHOLE = Pattern.compile(PATTERN);
  private static final Pattern PART = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");

  private Durations() {}

  /**
   * Parses a duration such as {@code 1h30m}.
   *
   * @throws IllegalArgumentException naming the value and the accepted form when it does not parse
   *     or is longer than {@link #LONGEST}
   */
  public static Duration parse(String value) {
    if (value == null || value.length() > MAX_LENGTH || !WHOLE.matcher(value).matches()) {
      throw new IllegalArgumentException("'" + value + "' is not a duration; use an integer with a"
          + " unit of ms, s, m or h, such as 500ms, 60s, 4m or 1h30m");
    }
    Duration total = Duration.ZERO;
    Matcher part = PART.matcher(value);
    while (part.find()) {
      long amount = Long.parseLong(part.group(1));
      total = total.plus(switch (part.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      });
    }
    if (total.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException("'" + value + "' is longer than 2562047h, the longest"
          + " duration Kubernetes accepts");
    }
    return total;
  }

  /** Formats a duration the way {@link #parse} reads it, such as {@code 1h30m} or {@code 20ms}. */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException(
          "negative duration " + duration + " has no Kubernetes form");
    }
    if (duration.isZero()) {
      return "0s";
    }
    StringBuilder out = new StringBuilder();
    long hours = duration.toHours();
    int minutes = duration.toMinutesPart();
    int seconds = duration.toSecondsPart();
    int millis = duration.toMillisPart();
    if (hours > 0) {
      out.append(hours).append('h');
    }
    if (minutes > 0) {
      out.append(minutes).append('m');
    }
    if (seconds > 0) {
      out.append(seconds).append('s');
    }
    if (millis > 0) {
      out.append(millis).append("ms");
    }
    return out.toString();
  }
}
