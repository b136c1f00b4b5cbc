package io.warmgate.bench.release;

import io.warmgate.agent.WarmGateConfig;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.preload.PreloadWorker;
import java.time.Duration;
import java.util.Map;

/**
 * The real practice's durations, before compression: the agent's and the policy's defaults, and
 * the fixed waits of the release practices warmgate replaces. Constants, not measurements.
 */
final class Practice {

  /** The agent's defaults, as a pod without any WARMGATE_* setting but its cache name has them. */
  private static final WarmGateConfig AGENT = WarmGateConfig.from(Map.of(WarmGateConfig.CACHE_NAME,
      ReleaseEnv.CACHE_NAME));

  static final Duration L1_TTL = AGENT.l1Ttl();
  static final Duration L2_TTL = AGENT.l2Ttl();
  static final Duration REFRESH_AHEAD = AGENT.refreshAhead();
  /**
   * Bounds one origin load (refresh lock and fill lease), which compressing time does not shorten:
   * the benchmark keeps it, capped below the compressed refresh-ahead window as the policy requires.
   */
  static final Duration LOCK_TTL = AGENT.lockTtl();
  static final Duration MAX_STALENESS = AGENT.maxStaleness();
  /** The agent's budget for one L2 command. */
  static final Duration L2_TIMEOUT = AGENT.l2Timeout();
  static final Duration HOT_HALF_LIFE = HotKeys.DEFAULT_HALF_LIFE;
  /** How often agents flush stats and sampled hot ids. */
  static final Duration FLUSH_INTERVAL = HotKeys.FLUSH_INTERVAL;
  /** How often an agent looks for a warm job. */
  static final Duration POLL_INTERVAL = PreloadWorker.POLL_INTERVAL;
  /** Practice (c): the canary warms L2 with its own traffic for this long, then the rest follow. */
  static final Duration FIXED_CANARY_WAIT = Duration.ofMinutes(10);
  /** The CachePolicy's {@code warmup.maxWait} default. */
  static final Duration MAX_WAIT = Duration.ofMinutes(10);
  /** Practice (b): the most one pod waits for its L1 to be warm (40 minutes for 8 pods). */
  static final Duration POD_WARM_CAP = Duration.ofMinutes(5);

  private Practice() {}

  /** The lock TTL a compressed run uses: the practice's, below half the compressed window. */
  static Duration lockTtl(ReleaseParams p) {
    Duration half = p.scaled(REFRESH_AHEAD).dividedBy(2);
    return LOCK_TTL.compareTo(half) < 0 ? LOCK_TTL : half;
  }
}
