package io.warmgate.bench.common;

/** Percentiles of sorted samples, by nearest rank, as every report of the benchmarks states them. */
public final class Percentiles {

  private Percentiles() {}

  /**
   * The smallest of {@code sorted} (ascending) with at least {@code q} (0–1) of the samples at or
   * below it; 0 when there are none.
   */
  public static long nearestRank(long[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[index(sorted.length, q)];
  }

  /** As {@link #nearestRank(long[], double)}, for samples that are not whole numbers. */
  public static double nearestRank(double[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[index(sorted.length, q)];
  }

  private static int index(int count, double q) {
    int rank = (int) Math.ceil(q * count);
    return Math.max(0, Math.min(count - 1, rank - 1));
  }
}
