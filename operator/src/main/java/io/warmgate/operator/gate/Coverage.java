package io.warmgate.operator.gate;

import java.util.Locale;

/**
 * How much of the hot set a namespace holds: {@code present} of the {@code total} hottest ids
 * have a value key in it.
 */
public record Coverage(long present, long total) {

  public Coverage {
    if (present < 0 || total < 0 || present > total) {
      throw new IllegalArgumentException("coverage " + present + "/" + total
          + " is impossible; present must be between 0 and total");
    }
  }

  /** Percentage 0-100, rounded to one decimal; 0 when the hot set is empty. */
  public double percent() {
    return total == 0 ? 0.0 : Math.floor(present * 1000.0 / total) / 10.0;
  }

  /**
   * Whether this coverage reaches {@code minCoverage} percent (exactly, before rounding). An
   * empty hot set reaches only 0: with nothing to measure, warmth is unknown.
   */
  public boolean reaches(int minCoverage) {
    if (total == 0) {
      return minCoverage == 0;
    }
    return present * 100 >= (long) minCoverage * total;
  }

  /** Such as {@code 4,812/20,000 keys}. */
  public String keys() {
    return String.format(Locale.ROOT, "%,d/%,d keys", present, total);
  }
}
