package io.warmgate.sim.fleet;

import java.util.Arrays;

/**
 * How many of the K pods run the new version over time, as a step function: the share of the
 * fleet's lookups each version's pods receive (a load balancer spreads requests evenly over the
 * live pods, and a replaced pod leaves the rotation as its successor joins, so K pods serve
 * throughout). Turns a lookup rate into arrival times of a non-homogeneous Poisson process.
 */
final class Schedule {

  private final double[] at;
  private final double[] newShare;
  private final double[] cumNew;
  private final double[] cumOld;
  private final double lastOldGone;

  /**
   * @param from when the old fleet starts serving (before the release)
   * @param steps {@code [time, new pods]} pairs in time order, times after {@code from}
   * @param pods K
   */
  Schedule(double from, double[][] steps, int pods) {
    at = new double[steps.length + 1];
    newShare = new double[steps.length + 1];
    at[0] = from;
    newShare[0] = 0;
    double gone = from;
    for (int k = 0; k < steps.length; k++) {
      if (steps[k][0] < at[k]) {
        throw new IllegalArgumentException("release steps out of time order: "
            + Arrays.deepToString(steps));
      }
      at[k + 1] = steps[k][0];
      newShare[k + 1] = steps[k][1] / pods;
      if (steps[k][1] >= pods && gone == from) {
        gone = steps[k][0];
      }
    }
    lastOldGone = gone;
    cumNew = new double[at.length];
    cumOld = new double[at.length];
    for (int k = 1; k < at.length; k++) {
      double span = at[k] - at[k - 1];
      cumNew[k] = cumNew[k - 1] + span * newShare[k - 1];
      cumOld[k] = cumOld[k - 1] + span * (1 - newShare[k - 1]);
    }
  }

  /** When the last old pod left the rotation. */
  double lastOldGone() {
    return lastOldGone;
  }

  /** The share of lookups the new version's pods receive at {@code t}. */
  double newShare(double t) {
    return newShare[segment(t)];
  }

  /**
   * The time of the first lookup after {@code from} of an id requested at {@code rate} per second
   * across the fleet, sent to {@code newVersion}'s pods, for a unit exponential draw {@code e};
   * {@link Double#POSITIVE_INFINITY} when that version receives no more lookups.
   */
  double next(boolean newVersion, double from, double rate, double e) {
    double[] cum = newVersion ? cumNew : cumOld;
    int k = segment(from);
    double share = newVersion ? newShare[k] : 1 - newShare[k];
    double target = cum[k] + (from - at[k]) * share + e / rate;
    // The last segment runs forever: find the segment whose span holds the target.
    int lo = k;
    int hi = at.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (cum[mid] <= target) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    double s = newVersion ? newShare[lo] : 1 - newShare[lo];
    if (s <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    return at[lo] + (target - cum[lo]) / s;
  }

  private int segment(double t) {
    int k = Arrays.binarySearch(at, t);
    return k >= 0 ? k : Math.max(0, -k - 2);
  }
}
