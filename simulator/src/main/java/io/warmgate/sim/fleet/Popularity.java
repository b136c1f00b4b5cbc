package io.warmgate.sim.fleet;

/**
 * Zipf popularity over ids 1..n: id {@code i} is the {@code i}-th most requested, with probability
 * {@code i^−s / H(n, s)} per lookup. Holds each id's fleet-wide lookup rate.
 */
final class Popularity {

  private final float[] rate;
  private final double skew;

  /**
   * @param ids n, at least 1
   * @param skew the Zipf exponent s, positive
   * @param lookupsPerSecond the fleet's lookups per second
   */
  Popularity(int ids, double skew, double lookupsPerSecond) {
    if (ids < 1 || !(skew > 0) || !(lookupsPerSecond > 0)) {
      throw new IllegalArgumentException("a Zipf fleet needs ids ≥ 1, skew > 0 and a positive rate:"
          + " got ids=" + ids + ", skew=" + skew + ", rate=" + lookupsPerSecond);
    }
    this.skew = skew;
    double h = 0;
    for (int i = ids; i >= 1; i--) {
      h += Math.pow(i, -skew);
    }
    rate = new float[ids];
    for (int i = 1; i <= ids; i++) {
      rate[i - 1] = (float) (lookupsPerSecond * Math.pow(i, -skew) / h);
    }
  }

  int ids() {
    return rate.length;
  }

  double skew() {
    return skew;
  }

  /** Lookups per second of id {@code i} (1-based) across the fleet. */
  double rate(int i) {
    return rate[i - 1];
  }

  /** The share of all lookups that ask for ids 1..{@code top}. */
  double share(int top) {
    double in = 0;
    double all = 0;
    for (int i = rate.length; i >= 1; i--) {
      all += rate[i - 1];
      if (i <= top) {
        in += rate[i - 1];
      }
    }
    return in / all;
  }
}
