package io.warmgate.bench.release;

import java.time.Duration;

/**
 * The real practice's durations, before compression: the agent's and the policy's defaults, and
 * the fixed waits of the release practices warmgate replaces. Constants, not measurements.
 */
final class Practice {

  static final Duration L1_TTL = Duration.ofSeconds(60);
  static final Duration L2_TTL = Duration.ofMinutes(4);
  static final Duration REFRESH_AHEAD = Duration.ofSeconds(60);
  static final Duration LOCK_TTL = Duration.ofSeconds(5);
  static final Duration MAX_STALENESS = Duration.ofMinutes(5);
  /** The hot set's half-life ({@code HotKeys.DEFAULT_HALF_LIFE}). */
  static final Duration HOT_HALF_LIFE = Duration.ofMinutes(10);
  /** How often agents flush stats and sampled hot ids. */
  static final Duration FLUSH_INTERVAL = Duration.ofSeconds(5);
  /** How often an agent looks for a warm job. */
  static final Duration POLL_INTERVAL = Duration.ofSeconds(1);
  /** Practice (c): the canary warms L2 with its own traffic for this long, then the rest follow. */
  static final Duration FIXED_CANARY_WAIT = Duration.ofMinutes(10);
  /** The policy's {@code warmup.maxWait} default. */
  static final Duration MAX_WAIT = Duration.ofMinutes(10);
  /** Practice (b): the most one pod waits for its L1 to be warm (40 minutes for 8 pods). */
  static final Duration POD_WARM_CAP = Duration.ofMinutes(5);

  private Practice() {}
}
