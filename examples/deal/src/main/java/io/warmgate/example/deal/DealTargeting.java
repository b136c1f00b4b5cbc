package io.warmgate.example.deal;

import java.util.Objects;

/**
 * A targeting rule of a deal (a {@code DealTargeting} row): include or exclude requests whose
 * {@code dimension} (e.g. {@code geo}, {@code device}) has {@code value}.
 *
 * @param dimension what is matched
 * @param value the matched value
 * @param exclude true to exclude matching requests, false to require them
 */
public record DealTargeting(String dimension, String value, boolean exclude) {

  /** @throws NullPointerException if {@code dimension} or {@code value} is null */
  public DealTargeting {
    Objects.requireNonNull(dimension, "dimension");
    Objects.requireNonNull(value, "value");
  }
}
