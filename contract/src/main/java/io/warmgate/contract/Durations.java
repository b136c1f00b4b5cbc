package io.warmgate.contract;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of warmgate: CachePolicy fields, {@code WARMGATE_*} variables of the
 * agent, the operator and the stream gateway. One or more amounts, each of up to 9 digits with an
 * optional fraction of up to 9 digits, each followed by a unit {@code ms}, {@code s}, {@code m} or
 * {@code h} ({@code 500ms}, {@code 60s}, {@code 4m}, {@code 1h30m}, {@code 1.5s}), or a bare
 * {@code 0}; at most {@value #MAX_LENGTH} characters and {@link #LONGEST}.
 *
 * <p>It is the subset of Go's {@code time.ParseDuration}, and so of CEL's {@code duration()}, that
 * the CRD's {@link #PATTERN} admits: what the API server admits always parses here, and what parses
 * here the API server admits. Amounts below a nanosecond are cut off, as Go does.
 */
public final class Durations {

  /** The OpenAPI pattern of every duration field of the CRD; the same grammar as {@link #parse}. */
  public static final String PATTERN = "^(0|([0-9]{1,9}(\\.[0-9]{1,9})?(ms|s|m|h))+)$";

  /** The longest duration text; keeps the CEL cost estimate of the CRD's rules small. */
  public static final int MAX_LENGTH = 32;

  /** Go's and CEL's longest duration (2562047h47m16.854775807s); the API server refuses longer. */
  public static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

  /** The accepted forms, for error messages. */
  public static final String FORMS = "a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts "
      + "of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)";

  private static final Pattern WHOLE = Pattern.compile(PATTERN);
  private static final Pattern PART = Pattern.compile("([0-9]{1,9}(?:\\.[0-9]{1,9})?)(ms|s|m|h)");
  private static final BigDecimal LONGEST_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

  private Durations() {}

  /**
   * Parses {@code text}, which is taken as it is (no trimming).
   *
   * @throws InvalidDurationException naming the value and the accepted forms when it does not
   *     follow the grammar or is longer than {@link #LONGEST}
   */
  public static Duration parse(String text) {
    if (text == null || text.length() > MAX_LENGTH) {
      throw new InvalidDurationException(text, FORMS + ", at most " + MAX_LENGTH + " characters");
    }
    if (!WHOLE.matcher(text).matches()) {
      throw new InvalidDurationException(text, FORMS);
    }
    BigDecimal nanos = BigDecimal.ZERO;
    Matcher part = PART.matcher(text);
    while (part.find()) {
      nanos = nanos.add(new BigDecimal(part.group(1)).multiply(unitNanos(part.group(2))));
    }
    nanos = nanos.setScale(0, RoundingMode.DOWN);
    if (nanos.compareTo(LONGEST_NANOS) > 0) {
      throw new InvalidDurationException(text, "a duration of at most 2562047h47m16.854775807s, "
          + "the longest Go and Kubernetes accept");
    }
    return Duration.ofNanos(nanos.longValueExact());
  }

  /**
   * Formats {@code duration} the way {@link #parse} reads it back to the same value: hours,
   * minutes, seconds and milliseconds, largest first, zero parts left out ({@code 1h30m},
   * {@code 1s500ms}, {@code 0s}); a rest below a millisecond as a fraction of it
   * ({@code 0.25ms}).
   *
   * @throws IllegalArgumentException if {@code duration} is negative or longer than
   *     {@link #LONGEST}
   */
  public static String format(Duration duration) {
    if (duration.isNegative() || duration.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException("duration " + duration + " has no form in this "
          + "grammar: it must be from 0 to 2562047h47m16.854775807s");
    }
    if (duration.isZero()) {
      return "0s";
    }
    StringBuilder out = new StringBuilder();
    append(out, duration.toHours(), "h");
    append(out, duration.toMinutesPart(), "m");
    append(out, duration.toSecondsPart(), "s");
    int nanosOfSecond = duration.toNanosPart();
    if (nanosOfSecond > 0) {
      out.append(BigDecimal.valueOf(nanosOfSecond, 6).stripTrailingZeros().toPlainString())
          .append("ms");
    }
    return out.toString();
  }

  private static void append(StringBuilder out, long amount, String unit) {
    if (amount > 0) {
      out.append(amount).append(unit);
    }
  }

  private static BigDecimal unitNanos(String unit) {
    return BigDecimal.valueOf(switch (unit) {
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      default -> 3_600_000_000_000L;
    });
  }
}
