package io.warmgate.sim.fleet;

import java.util.Locale;

/**
 * The knobs of a simulated release. Durations are the practice's own (the agent's and the
 * policy's defaults): virtual time costs nothing, so nothing is compressed. {@link #full} is what
 * the report quotes, {@link #quick} a CI-sized run; each can be overridden with
 * {@code --<name> value}.
 *
 * @param pods K, the pods of the fleet (old and new version alike)
 * @param lookupsPerSecond the fleet's lookups per second, each of one id
 * @param ids how many ids the traffic draws from
 * @param skew the Zipf exponent: 1.21 is the published figure for Twitter's cache cluster 52,
 *     0.9 a flatter, harder case
 * @param hotSetSize the policy's {@code warmup.hotSetSize} (default 10,000)
 * @param preloadRate the policy's {@code warmup.preloadRate}, ids/s (default 500)
 * @param nodes the origin's nodes; 0 sizes it so that the steady traffic uses at most a third of
 *     its capacity
 * @param learnSeconds how long the old fleet has recorded hot ids before the release
 * @param seed the seed of every draw
 */
public record SimParams(int pods, double lookupsPerSecond, int ids, double skew, int hotSetSize,
    int preloadRate, double nodes, double learnSeconds, long seed) {

  /** The agent's and policy's defaults (seconds): L1 TTL, L2 TTL, refresh-ahead window. */
  static final double L1_TTL = 60;
  static final double L2_TTL = 240;
  static final double REFRESH_AHEAD = 60;
  /** The policy's {@code warmup.minCoverage} and {@code warmup.maxWait} defaults. */
  static final int MIN_COVERAGE = 80;
  static final double MAX_WAIT = 600;
  /** Practice (c): the canary fills L2 with its own traffic for this long. */
  static final double FIXED_CANARY_WAIT = 600;
  /** Practice (b): the most one pod waits for its L1 to be warm. */
  static final double POD_WARM_CAP = 300;
  /** The agents' hot-key sampling and half-life defaults ({@code HotKeys}). */
  static final int SAMPLE_PERIOD = 16;
  static final double HALF_LIFE = 600;
  /** The operator evaluates a held canary once a second; the preload worker polls once a second. */
  static final double GATE_INTERVAL = 1;
  static final double POLL_INTERVAL = 1;
  /** Ids per preload batch: the operator's cap of 200, or the rate when lower. */
  static final int MAX_PRELOAD_BATCH = 200;

  public static SimParams full(double skew) {
    return new SimParams(500, 1_000_000, 10_000_000, skew, 10_000, 500, 0, 3_600, 42);
  }

  public static SimParams quick(double skew) {
    return new SimParams(50, 50_000, 500_000, skew, 10_000, 500, 0, 3_600, 42);
  }

  public SimParams {
    if (pods < 2 || ids < 1 || !(lookupsPerSecond > 0) || !(skew > 0) || hotSetSize < 1
        || preloadRate < 1 || nodes < 0 || !(learnSeconds > 0)) {
      throw new IllegalArgumentException("impossible simulation settings " + this + ": need pods ≥ "
          + "2, ids ≥ 1, positive lookups/s, skew, hot-set size, preload rate and learn time, and"
          + " nodes ≥ 0 (0 sizes the origin)");
    }
  }

  /** These parameters with {@code name} set to {@code value}. */
  public SimParams with(String name, String value) {
    try {
      return switch (name) {
        case "pods" -> new SimParams(Integer.parseInt(value), lookupsPerSecond, ids, skew,
            hotSetSize, preloadRate, nodes, learnSeconds, seed);
        case "rate" -> new SimParams(pods, Double.parseDouble(value), ids, skew, hotSetSize,
            preloadRate, nodes, learnSeconds, seed);
        case "ids" -> new SimParams(pods, lookupsPerSecond, Integer.parseInt(value), skew,
            hotSetSize, preloadRate, nodes, learnSeconds, seed);
        case "hot-set-size" -> new SimParams(pods, lookupsPerSecond, ids, skew,
            Integer.parseInt(value), preloadRate, nodes, learnSeconds, seed);
        case "preload-rate" -> new SimParams(pods, lookupsPerSecond, ids, skew, hotSetSize,
            Integer.parseInt(value), nodes, learnSeconds, seed);
        case "nodes" -> new SimParams(pods, lookupsPerSecond, ids, skew, hotSetSize, preloadRate,
            Double.parseDouble(value), learnSeconds, seed);
        case "seed" -> new SimParams(pods, lookupsPerSecond, ids, skew, hotSetSize, preloadRate,
            nodes, learnSeconds, Long.parseLong(value));
        default -> throw new IllegalArgumentException("unknown simulator setting --" + name
            + ": use pods, rate, ids, skew, hot-set-size, preload-rate, nodes or seed");
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " needs a number, got '" + value + "'", e);
    }
  }

  /** These parameters with {@code skew}. */
  public SimParams withSkew(double skew) {
    return new SimParams(pods, lookupsPerSecond, ids, skew, hotSetSize, preloadRate, nodes,
        learnSeconds, seed);
  }

  String describe() {
    return String.format(Locale.ROOT, "K=%d pods, %,.0f lookups/s of one id each over %,d ids, "
        + "Zipf s=%.2f, hotSetSize %,d, preloadRate %,d ids/s, seed %d", pods, lookupsPerSecond,
        ids, skew, hotSetSize, preloadRate, seed);
  }
}
