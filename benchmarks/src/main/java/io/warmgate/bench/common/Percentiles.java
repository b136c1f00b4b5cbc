package io.warmgate.bench.common;

/** Percentiles of sorted samples, by nearest rank, as every report of the benchmarks states them. */
public final class Percentiles {

  private Percentiles() {}

  /**
   * The smallest of {@code sorted} (ascending) with at least {@code q} (0–1) of the samples at or
   * below it; 0 when there are none.
   */
  public static long nearestRank(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
