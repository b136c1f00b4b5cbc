package io.warmgate.sim.fleet;

/**
 * One pod's L1 (TTL per entry, per pod) under its share of the fleet's Poisson lookups: an id
 * requested by the pod at {@code μ} per second is held for one L1 TTL after each miss, so a pod
 * that has served long enough answers {@code μT / (1 + μT)} of its lookups of it from L1 (a
 * renewal cycle of one miss and {@code μT} hits), and a pod started cold {@code a} seconds ago
 * answers {@code 1 − e^(−μa)} of them, exactly while {@code a} is below one L1 TTL (no entry has
 * expired yet). Sums over ids weight each by its share of the lookups.
 */
final class L1Model {

  private final Popularity popularity;
  private final int pods;
  private final double ttl;

  L1Model(Popularity popularity, int pods, double l1TtlSeconds) {
    this.popularity = popularity;
    this.pods = pods;
    this.ttl = l1TtlSeconds;
  }

  /** The share of a long-running pod's lookups its L1 answers. */
  double steadyHitRatio() {
    double hits = 0;
    double all = 0;
    for (int i = popularity.ids(); i >= 1; i--) {
      double rate = popularity.rate(i);
      double x = rate / pods * ttl;
      hits += rate * x / (1 + x);
      all += rate;
    }
    return hits / all;
  }

  /** The share of its lookups the L1 of a pod started cold {@code age} seconds ago answers. */
  double coldHitRatio(double age) {
    double hits = 0;
    double all = 0;
    for (int i = popularity.ids(); i >= 1; i--) {
      double rate = popularity.rate(i);
      hits += rate * -Math.expm1(-rate / pods * age);
      all += rate;
    }
    return hits / all;
  }

  /**
   * How long a cold pod takes until its L1 answers {@code fraction} of the steady share, to 0.1 s;
   * at most {@code cap} seconds. Within one L1 TTL, since a cold pod's ratio at one TTL is at
   * least the steady one.
   */
  double warmAge(double fraction, double cap) {
    double goal = fraction * steadyHitRatio();
    double lo = 0;
    double hi = Math.min(cap, ttl);
    if (coldHitRatio(hi) < goal) {
      return hi;
    }
    while (hi - lo > 0.1) {
      double mid = (lo + hi) / 2;
      if (coldHitRatio(mid) >= goal) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }

  /** The rate at which a namespace's pods ask L2 for an id requested {@code rate}/s fleet-wide. */
  double l2Rate(double rate) {
    return rate / (1 + rate / pods * ttl);
  }
}
