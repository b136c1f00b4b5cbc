package io.warmgate.agent.preload;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The preload's rate under an origin budget: additive increase, multiplicative decrease (AIMD,
 * as TCP's congestion control), driven by what the preloading agent sees of the origin.
 *
 * <ul>
 *   <li>It starts at {@link #START_SHARE} of the ceiling and never exceeds the ceiling (the job's
 *       {@code ceiling}: the operator's {@code originBudget} minus the steady origin rate, at most
 *       {@code preloadRate}), nor falls below {@link #FLOOR}.
 *   <li>The origin's <b>baseline</b> latency is the median of the first
 *       {@link #BASELINE_SAMPLES} batch latencies (taken at the low starting rate), then the lowest
 *       smoothed latency seen: a rate at which the origin answers no slower than that is one it
 *       takes without queueing.
 *   <li>Each successful batch is a sample; the latency is smoothed (EWMA, weight
 *       {@link #SMOOTHING}). Smoothed latency above {@link #TOLERANCE} × baseline, or an origin
 *       error, is <b>congestion</b>: the rate is multiplied by {@link #DECREASE}, at most once per
 *       cool-down (the larger of one second and twice the smoothed latency), since the batches
 *       already in flight were sent at the old rate.
 *   <li>Otherwise the rate grows by {@link #INCREASE_SHARE} of the ceiling per second since the
 *       last change: back to the ceiling in about 20 s after a halving, gradually.
 * </ul>
 *
 * <p>Pure: the clock is given. Not thread-safe.
 */
final class AimdRate {

  /** The starting rate, as a share of the ceiling. */
  static final double START_SHARE = 0.1;
  /** Lowest rate, ids per second. */
  static final double FLOOR = 1;
  /** Growth per second while the origin keeps up, as a share of the ceiling. */
  static final double INCREASE_SHARE = 0.05;
  /** Factor applied to the rate on congestion. */
  static final double DECREASE = 0.5;
  /** Smoothed latency above this many times the baseline is congestion. */
  static final double TOLERANCE = 1.25;
  /** Weight of the newest sample in the smoothed latency. */
  static final double SMOOTHING = 0.5;
  /** Batch latencies whose median is the first baseline. */
  static final int BASELINE_SAMPLES = 3;
  private static final long SECOND = 1_000_000_000L;

  private final LongSupplier nanoTime;
  private double ceiling;
  private double rate;
  private final long[] first = new long[BASELINE_SAMPLES];
  private int samples;
  private double baseline;
  private double smoothed;
  private long lastChange;
  private long lastDecrease = Long.MIN_VALUE;
  private String last = "starting";

  /**
   * @param ceiling the highest rate, ids per second
   * @throws IllegalArgumentException if {@code ceiling} is not a finite number ≥ {@link #FLOOR}
   */
  AimdRate(double ceiling, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    ceiling(ceiling);
    this.rate = Math.max(FLOOR, this.ceiling * START_SHARE);
    this.lastChange = nanoTime.getAsLong();
  }

  /** The rate to pace at now, ids per second. */
  double rate() {
    return rate;
  }

  double ceiling() {
    return ceiling;
  }

  /** The baseline latency in nanoseconds; 0 until {@link #BASELINE_SAMPLES} were taken. */
  double baselineNanos() {
    return baseline;
  }

  /**
   * Sets a new ceiling (the budget or the steady rate moved); the rate drops to it at once if
   * above.
   *
   * @throws IllegalArgumentException if {@code ceiling} is not a finite number ≥ {@link #FLOOR}
   */
  void ceiling(double ceiling) {
    if (!(ceiling >= FLOOR) || Double.isInfinite(ceiling)) {
      throw new IllegalArgumentException("ceiling must be a finite number of ids per second >= "
          + FLOOR + ": " + ceiling);
    }
    this.ceiling = ceiling;
    rate = Math.min(rate, ceiling);
  }

  /** A batch the origin answered in {@code latencyNanos}. */
  void succeeded(long latencyNanos) {
    long now = nanoTime.getAsLong();
    if (samples < BASELINE_SAMPLES) {
      first[samples++] = latencyNanos;
      smoothed = latencyNanos;
      if (samples == BASELINE_SAMPLES) {
        long[] sorted = first.clone();
        Arrays.sort(sorted);
        baseline = sorted[BASELINE_SAMPLES / 2];
        smoothed = baseline;
      }
      increase(now);
      return;
    }
    smoothed = SMOOTHING * latencyNanos + (1 - SMOOTHING) * smoothed;
    baseline = Math.min(baseline, smoothed);
    if (smoothed > TOLERANCE * baseline) {
      decrease(now, String.format(Locale.ROOT, "origin latency %.0f ms over %.2f × its "
          + "baseline %.0f ms", smoothed / 1e6, TOLERANCE, baseline / 1e6));
    } else {
      increase(now);
    }
  }

  /** A batch the origin failed. */
  void failed() {
    decrease(nanoTime.getAsLong(), "origin error");
  }

  /** What last changed the rate, such as {@code origin error} or {@code increasing}. */
  String last() {
    return last;
  }

  private void increase(long now) {
    double seconds = Math.max(0, now - lastChange) / (double) SECOND;
    rate = Math.min(ceiling, rate + INCREASE_SHARE * ceiling * seconds);
    lastChange = now;
    last = rate >= ceiling ? "at the ceiling" : "increasing";
  }

  private void decrease(long now, String why) {
    long coolDown = Math.max(SECOND, (long) (2 * smoothed));
    if (lastDecrease != Long.MIN_VALUE && now - lastDecrease < coolDown) {
      lastChange = now; // no growth while congested
      return;
    }
    rate = Math.max(FLOOR, rate * DECREASE);
    lastDecrease = now;
    lastChange = now;
    last = "halved: " + why;
  }
}
