package io.warmgate.example.deals;

import java.util.SplittableRandom;

/**
 * Draws ranks 1..n with probability proportional to {@code 1 / rank^s}, by inverting a precomputed
 * cumulative distribution (binary search, no allocation per draw). Rank 1 is the hottest.
 */
public final class Zipf {

  private final double[] cdf;

  /** @throws IllegalArgumentException if {@code n < 1} or {@code s <= 0} */
  public Zipf(int n, double s) {
    if (n < 1 || !(s > 0)) {
      throw new IllegalArgumentException("Zipf needs n >= 1 and s > 0, got n=" + n + ", s=" + s);
    }
    cdf = new double[n];
    double sum = 0;
    for (int k = 1; k <= n; k++) {
      sum += 1 / Math.pow(k, s);
      cdf[k - 1] = sum;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= sum;
    }
  }

  /** Returns a rank in 1..n. */
  public int next(SplittableRandom random) {
    double u = random.nextDouble();
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo + 1;
  }
}
