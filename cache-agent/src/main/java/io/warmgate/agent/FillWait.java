package io.warmgate.agent;

import java.time.Duration;

/**
 * How long a lookup that missed L2 waits for another pod's origin read of the same id: about as
 * long as this pod's own origin reads take, never longer than the configured ceiling.
 *
 * <p>A waiter that gives up early reads the origin a second time for the same id, which is the
 * duplicate the fill lease exists to prevent; a waiter that waits longer than its own read would
 * have taken makes its latency depend on another pod's. So the wait follows this pod's origin
 * latency the way TCP's retransmission timeout follows round trips (RFC 6298): a smoothed mean
 * plus four smoothed deviations of the successful origin calls, so that a waiter covers nearly all
 * of the reads it waits for. Until the first call is timed the ceiling applies: a fleet that
 * starts empty misses together before any pod has timed a read, the case where waiting pays most.
 */
final class FillWait {

  /** Weights of a new sample in the smoothed mean and deviation, as in RFC 6298. */
  private static final double ALPHA = 1.0 / 8;
  private static final double BETA = 1.0 / 4;

  private final long ceilingNanos;
  private double meanNanos = Double.NaN;
  private double deviationNanos;
  private volatile long budgetNanos;

  /** @param ceiling the longest wait; zero means no fill lease (checked by the caller) */
  FillWait(Duration ceiling) {
    this.ceilingNanos = ceiling.toNanos();
    this.budgetNanos = ceilingNanos;
  }

  /** The current wait budget in nanoseconds. */
  long nanos() {
    return budgetNanos;
  }

  /** Records the duration of a successful origin call of this pod. */
  synchronized void originRead(long nanos) {
    if (Double.isNaN(meanNanos)) {
      meanNanos = nanos;
      deviationNanos = nanos / 2.0;
    } else {
      deviationNanos += BETA * (Math.abs(meanNanos - nanos) - deviationNanos);
      meanNanos += ALPHA * (nanos - meanNanos);
    }
    budgetNanos = Math.min(ceilingNanos, (long) (meanNanos + 4 * deviationNanos));
  }
}
