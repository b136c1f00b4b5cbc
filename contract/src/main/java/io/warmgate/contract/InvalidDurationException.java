package io.warmgate.contract;

/**
 * A text that is not a duration of {@link Durations}' grammar. Its message names the value and the
 * accepted forms; {@link #expected()} is the latter alone, for callers that name the setting
 * themselves.
 */
public final class InvalidDurationException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String value;
  private final String expected;

  InvalidDurationException(String value, String expected) {
    super("'" + value + "' is not a valid duration: expected " + expected);
    this.value = value;
    this.expected = expected;
  }

  /** The refused text, possibly null. */
  public String value() {
    return value;
  }

  /** What was expected instead, such as {@value Durations#FORMS}. */
  public String expected() {
    return expected;
  }
}
