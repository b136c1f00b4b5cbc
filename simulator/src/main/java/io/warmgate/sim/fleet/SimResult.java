package io.warmgate.sim.fleet;

import io.warmgate.operator.gate.OriginForecast;

/**
 * What one simulated release cost the origin over the common window (first new pod → a fixed
 * time after the slowest strategy's last old pod). Origin reads count ids (rows).
 *
 * @param steadyPerSecond origin reads/s over the last L2 TTL before the release
 * @param peakPerSecond the most origin reads in one 1-second bucket of the window
 * @param peakUtilisation the origin's highest CPU share in one second of the window, 0–1
 * @param totalReads origin reads in the window, both versions
 * @param newFills the new version's reads of ids it did not hold yet, retries after failures and
 *     preload reads: its own cost, refresh-ahead and expiry renewals left out
 * @param newDistinct ids the new version read at least once
 * @param preloadReads reads of the warm job
 * @param releaseSeconds first new pod → the strategy's last step (last old pod gone; for (b)
 *     the last new pod warm, as the benchmark times it)
 * @param deadlineQueries origin queries that failed with {@code DEADLINE_EXCEEDED} in the window
 * @param exhaustedQueries origin queries refused with {@code RESOURCE_EXHAUSTED} in the window
 * @param deadlineLookups lookups that waited on a fill that failed with {@code DEADLINE_EXCEEDED}
 *     (expected count: the id's lookups while the failed read was in flight)
 * @param exhaustedLookups lookups whose fill was refused with {@code RESOURCE_EXHAUSTED}
 * @param timeline origin reads per second from {@code leadSeconds} before the release
 * @param gate how the gate released (null when not gated)
 * @param worstLatency the longest mean origin latency of a {@value Simulation#TICK} s tick in the
 *     window, seconds
 * @param peakOutsideHotSet new-version reads of ids outside the hot set in the peak second
 */
public record SimResult(Strategy strategy, double steadyPerSecond, long peakPerSecond,
    int peakSecond, double peakUtilisation, long totalReads, long newFills, long newDistinct,
    long preloadReads, double releaseSeconds, long deadlineQueries, long exhaustedQueries,
    long deadlineLookups, long exhaustedLookups, long[] timeline, int leadSeconds,
    GateOutcome gate, double worstLatency, long peakOutsideHotSet) {

  /** The new version's reads per id it read: 1 when each was read once. */
  public double readsPerNewId() {
    return newDistinct == 0 ? 0 : (double) newFills / newDistinct;
  }

  /**
   * How a gated release ended.
   *
   * @param releasedAt seconds after the canary started
   * @param phase the gate's phase at release
   * @param coverage the coverage the gate saw at release, percent
   * @param message the gate's message
   * @param hotSet the hot set's size
   * @param hotSetShare the share of lookups that ask for a hot-set id
   * @param forecast the operator's origin forecast when the gate released
   */
  public record GateOutcome(double releasedAt, String phase, double coverage, String message,
      int hotSet, double hotSetShare, OriginForecast.Forecast forecast) {}
}
