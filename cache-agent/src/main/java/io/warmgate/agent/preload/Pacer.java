package io.warmgate.agent.preload;

import java.util.function.LongSupplier;

/**
 * Spaces out permits at a fixed rate: {@link #acquire(int) acquire(n)} returns once the previous
 * acquisition's permits have been "spent" at {@code permitsPerSecond}, then books {@code n} more.
 * Nothing is saved up while idle, so from the first acquisition on, the permits granted by elapsed
 * time {@code t} never exceed {@code permitsPerSecond × t} plus the last acquisition's {@code n}.
 * The rate may change between acquisitions ({@link #rate(double)}); it applies to the permits
 * booked from then on. Not thread-safe.
 */
final class Pacer {

  /** Waits; returns early (without an exception) when the worker stops. */
  @FunctionalInterface
  interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private double nanosPerPermit;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private long nextFreeNanos;
  private boolean started;

  /**
   * @throws IllegalArgumentException if {@code permitsPerSecond} is not a positive finite number
   */
  Pacer(double permitsPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
    rate(permitsPerSecond);
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
  }

  /**
   * Sets the rate of the permits booked from now on.
   *
   * @throws IllegalArgumentException if {@code permitsPerSecond} is not a positive finite number
   */
  void rate(double permitsPerSecond) {
    if (!(permitsPerSecond > 0) || Double.isInfinite(permitsPerSecond)) {
      throw new IllegalArgumentException("permitsPerSecond must be a positive finite number: "
          + permitsPerSecond);
    }
    this.nanosPerPermit = 1e9 / permitsPerSecond;
  }

  /** Waits until {@code permits} may be used, then books them. */
  void acquire(int permits) throws InterruptedException {
    long now = nanoTime.getAsLong();
    if (!started) {
      started = true;
      nextFreeNanos = now;
    }
    long wait = nextFreeNanos - now;
    if (wait > 0) {
      sleeper.sleepNanos(wait);
    }
    // Booked from when they were due, not from when the sleep returned, so oversleeping does not
    // lower the rate; but never from the past, so idle time is not saved up as a burst.
    nextFreeNanos = Math.max(nextFreeNanos, now) + (long) Math.ceil(permits * nanosPerPermit);
  }
}
