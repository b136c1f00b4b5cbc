package io.warmgate.operator.gate;

import java.util.Locale;

/**
 * How much of the target ids a namespace holds: {@code present} of {@code sampled} ids checked
 * have a value key in it, the sampled ids being all {@code total} target ids or a fixed random
 * sample of them ({@link NamespaceStats#COVERAGE_SAMPLE}).
 *
 * @param present sampled ids whose value key exists
 * @param total the target ids
 * @param sampled the ids checked: {@code total}, or fewer when sampled
 */
public record Coverage(long present, long total, long sampled) {

  /**
   * z of the one-sided 95% bound: a sampled coverage reaches a minimum only when its lower
   * bound does, so a canary is released early with at most 5% probability.
   */
  static final double Z_95 = 1.6448536269514722;

  public Coverage {
    if (present < 0 || sampled < 0 || total < 0 || present > sampled || sampled > total) {
      throw new IllegalArgumentException("coverage " + present + " of " + sampled + " sampled of "
          + total + " is impossible; need 0 <= present <= sampled <= total");
    }
  }

  /** Every one of the {@code total} ids checked. */
  public Coverage(long present, long total) {
    this(present, total, total);
  }

  /** Whether only a sample of the ids was checked. */
  public boolean isSampled() {
    return sampled < total;
  }

  /** Percentage 0-100 of the checked ids, rounded down to one decimal; 0 when none. */
  public double percent() {
    return sampled == 0 ? 0.0 : Math.floor(present * 1000.0 / sampled) / 10.0;
  }

  /**
   * Whether this coverage reaches {@code minCoverage} percent: exactly, when every id was
   * checked; when sampled, the Wilson score lower bound at one-sided 95% confidence must reach it.
   * An empty target reaches only 0: with nothing to measure, warmth is unknown.
   */
  public boolean reaches(int minCoverage) {
    if (total == 0) {
      return minCoverage == 0;
    }
    if (!isSampled()) {
      return present * 100 >= (long) minCoverage * total;
    }
    return lowerBound() * 100 >= minCoverage;
  }

  /** The Wilson score lower bound (one-sided 95%) of the share present; exact when unsampled. */
  double lowerBound() {
    if (sampled == 0) {
      return 0;
    }
    double n = sampled;
    double p = present / n;
    double z2 = Z_95 * Z_95;
    return (p + z2 / (2 * n) - Z_95 * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)))
        / (1 + z2 / n);
  }

  /**
   * Such as {@code 4,812/20,000 keys}, or when sampled {@code ~16,016/20,000 keys (801 of 1,024
   * sampled ids present)}.
   */
  public String keys() {
    if (!isSampled()) {
      return String.format(Locale.ROOT, "%,d/%,d keys", present, total);
    }
    long estimate = Math.round((double) total * present / sampled);
    return String.format(Locale.ROOT, "~%,d/%,d keys (%,d of %,d sampled ids present)", estimate,
        total, present, sampled);
  }
}
