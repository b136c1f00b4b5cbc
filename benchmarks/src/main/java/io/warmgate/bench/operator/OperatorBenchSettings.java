package io.warmgate.bench.operator;

import java.time.Duration;

/**
 * What the operator benchmarks run.
 *
 * @param quick a short smoke run whose figures are not to be quoted
 * @param repetitions gate measurements per scenario (warm criterion met, same schema)
 * @param pods K: the Rollout's replicas; K stable agents and ceil(K × 20 %) canary agents register
 * @param policies CachePolicies (each with its own Rollout) for the footprint
 * @param settle how long the operator idles before a memory sample
 * @param preloadKeysPerSecond INPUT: the preload worker's keys/s measured by the preload benchmark
 * @param hotSetSize hot ids of each gate measurement and of the release-time table: 1,000, at most
 *     the 1,024 ids the gate checks one by one (a larger target is sampled and must clear a
 *     confidence bound, so the one key that completes {@code minCoverage} would not release it)
 * @param minCoverage percent of the hot set needed (the policy default, 80)
 */
record OperatorBenchSettings(boolean quick, int repetitions, int pods, int policies,
    Duration settle, double preloadKeysPerSecond, int hotSetSize, int minCoverage) {

  /** The preload rate used when the caller passes none: the policy's default {@code preloadRate} cap. */
  static final double DEFAULT_PRELOAD_KEYS_PER_SECOND = 500;
  /** The reference rollout waits this long at the step where warmgate gates. */
  static final Duration REFERENCE_WAIT = Duration.ofMinutes(10);

  OperatorBenchSettings {
    if (!(preloadKeysPerSecond > 0)) {
      throw new IllegalArgumentException("preloadKeysPerSecond must be > 0, got "
          + preloadKeysPerSecond + "; pass the preload benchmark's measured keys/s");
    }
  }

  static OperatorBenchSettings of(boolean quick, double preloadKeysPerSecond) {
    return new OperatorBenchSettings(quick, quick ? 3 : 20, 8, 100,
        Duration.ofSeconds(quick ? 3 : 10), preloadKeysPerSecond, 1_000, 80);
  }

  OperatorBenchSettings withRepetitions(int n) {
    return new OperatorBenchSettings(quick, n, pods, policies, settle, preloadKeysPerSecond,
        hotSetSize, minCoverage);
  }

  OperatorBenchSettings withPods(int k) {
    return new OperatorBenchSettings(quick, repetitions, k, policies, settle, preloadKeysPerSecond,
        hotSetSize, minCoverage);
  }

  /** Canary pods at the gate step: the first canary step sets weight 20 %. */
  int canaryPods() {
    return Math.max(1, (int) Math.ceil(pods * 0.2));
  }
}
