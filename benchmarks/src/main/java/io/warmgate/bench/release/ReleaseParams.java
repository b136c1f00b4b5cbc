package io.warmgate.bench.release;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The knobs of the release benchmark. {@link #full()} is what the report quotes, {@link #quick()}
 * a smoke run sized for CI; each can be overridden with {@code --release-<name> value}.
 *
 * @param agents K, the pods of the fleet (old and new version alike)
 * @param deals deals seeded into the emulator
 * @param skew Zipf exponent s of the traffic
 * @param rate fleet requests per second, spread evenly over the live pods. A request makes at
 *     most one origin call, whatever its misses, and the emulator answers the Deal JOIN in about
 *     300 ms alone and at about 6.7 queries a second on 2 cores, whether it asks for 1 id or
 *     100 (its cost is per query). So traffic is a few requests of many ids each, and the full
 *     run's 2 a second keeps the emulator far from saturation even when every request misses: a
 *     saturated emulator queues calls for seconds to minutes, and latencies and lease waits would
 *     measure that queue instead of the release
 * @param idsPerRequest deal ids per request, looked up with one {@code getAll} (an ad request
 *     considers many deals; the origin is asked once for a request's misses)
 * @param hotSetSize the policy's {@code warmup.hotSetSize}: the most hot ids the gate considers.
 *     The CRD refuses a Preload of {@code minCoverage} % of it at {@code preloadRate} that takes
 *     longer than {@code l2Ttl}, which compression shortens, hence 2,000 rather than the 10,000
 *     default (the forecast keeps far fewer either way)
 * @param preloadRate the policy's {@code warmup.preloadRate}, ids/s (not compressed: it is what
 *     the origin tolerates)
 * @param timeFactor how many seconds of the real practice one second here stands for: TTLs,
 *     half-life, flush intervals, fixed waits and maxWait are divided by it
 * @param learnHalfLives how long the old fleet serves before the first release, in hot-set
 *     half-lives, so that the agents learn the hot set from traffic
 * @param hotSamplePeriod the agents record one lookup in this many in the hot set. Compression
 *     shortens the half-life but not the request rate, so a compressed half-life sees
 *     {@code timeFactor} times fewer lookups than the practice's; the agent's default of one in
 *     {@value io.warmgate.agent.hot.HotKeys#DEFAULT_SAMPLE_PERIOD}, made for production rates,
 *     would then rank the hot set from a few hundred samples. The benchmark records every lookup.
 * @param seed popularity and draw seed
 * @param origin what answers the pods' misses: the Spanner emulator, or the {@link
 *     io.warmgate.bench.origin.CapacityModelledOrigin capacity-modelled stand-in} shared by the
 *     fleet (see {@link ModelledDeals})
 * @param nodes the modelled origin's nodes; 0 sizes it from the fleet's steady traffic so that it
 *     uses {@value ModelledDeals#STEADY_SHARE_PERCENT} % of the capacity (ignored by the emulator)
 * @param repetitions how many times each strategy is played; the runs go in a shuffled order
 * @param windowSeconds every release's window, seconds of this run from the first new pod, the
 *     same for every strategy; 0 ends each release's window one L2 TTL after its own last old pod
 * @param l2TimeoutMillis the pods' L2 budget per command
 * @param strategies the letters of the strategies to play, such as {@code abcde}
 */
record ReleaseParams(int agents, int deals, double skew, int rate, int idsPerRequest, int hotSetSize,
    int preloadRate, double timeFactor, double learnHalfLives, int hotSamplePeriod, long seed,
    Origin origin, double nodes, int repetitions, double windowSeconds, int l2TimeoutMillis,
    String strategies) {

  /** Every strategy ((f) only with the modelled origin, whose 65 % line is its budget). */
  static final String ALL_STRATEGIES = "abcdef";
  /** The strategies the emulator plays. */
  static final String EMULATOR_STRATEGIES = "abcde";

  /** What answers the pods' misses. */
  enum Origin {
    EMULATOR, MODELLED
  }

  /** As in the fleet benchmark: a shared 2-core machine needs more than the 20 ms default. */
  static final int EMULATOR_L2_TIMEOUT_MILLIS = 250;

  static ReleaseParams full() {
    return new ReleaseParams(8, 10_000, 1.1, 2, 50, 2_000, 500, 20, 2, 1, 42, Origin.EMULATOR, 0,
        1, 0, EMULATOR_L2_TIMEOUT_MILLIS, EMULATOR_STRATEGIES);
  }

  static ReleaseParams quick() {
    return new ReleaseParams(3, 2_000, 1.1, 2, 50, 2_000, 500, 30, 1, 1, 42, Origin.EMULATOR, 0,
        1, 0, EMULATOR_L2_TIMEOUT_MILLIS, EMULATOR_STRATEGIES);
  }

  /**
   * The release at production traffic against the modelled origin: K = 16 pods, 1,000,000 ids,
   * Zipf s = 1.21 (Twitter's cache cluster 52, the published figure), 400 requests of 50 ids a
   * second (20,000 lookups/s), the policy's default hot set, time compressed 10×, three
   * repetitions, and the agents' default L2 budget.
   */
  static ReleaseParams scale() {
    return new ReleaseParams(16, 1_000_000, 1.21, 400, 50, 10_000, 0, 10, 2, 1, 42,
        Origin.MODELLED, 0, 3, 120, (int) Practice.L2_TIMEOUT.toMillis(), ALL_STRATEGIES);
  }

  /**
   * A smoke run of {@link #scale()} for CI: 4 pods, 5,000 lookups/s, one repetition of (a) and
   * (e), the two its bars read.
   */
  static ReleaseParams scaleQuick() {
    return new ReleaseParams(4, 100_000, 1.21, 100, 50, 10_000, 0, 20, 1, 1, 42,
        Origin.MODELLED, 0, 1, 40, (int) Practice.L2_TIMEOUT.toMillis(), "ae");
  }

  /** A duration of the real practice, compressed: {@code real / timeFactor}. */
  Duration scaled(Duration real) {
    return Duration.ofNanos((long) (real.toNanos() / timeFactor));
  }

  /** Returns these parameters with {@code name} set to {@code value}. */
  ReleaseParams with(String name, String value) {
    try {
      int k = agents;
      int n = deals;
      double s = skew;
      int r = rate;
      int ids = idsPerRequest;
      int hot = hotSetSize;
      int preload = preloadRate;
      double f = timeFactor;
      double learn = learnHalfLives;
      int sample = hotSamplePeriod;
      long x = seed;
      Origin o = origin;
      double nd = nodes;
      int reps = repetitions;
      double window = windowSeconds;
      int l2 = l2TimeoutMillis;
      String plays = strategies;
      switch (name) {
        case "agents" -> k = atLeast(name, value, 2);
        case "deals" -> n = atLeast(name, value, 1);
        case "skew" -> s = positive(name, value);
        case "rate" -> r = atLeast(name, value, 1);
        case "ids-per-request" -> ids = atLeast(name, value, 1);
        case "hot-set-size" -> hot = atLeast(name, value, 1);
        case "preload-rate" -> preload = atLeast(name, value, 1);
        case "time-factor" -> f = positive(name, value);
        case "learn-half-lives" -> learn = positive(name, value);
        case "hot-sample-period" -> sample = powerOfTwo(name, value);
        case "seed" -> x = Long.parseLong(value);
        case "origin" -> o = origin(value);
        case "nodes" -> nd = atLeastZero(name, value);
        case "repetitions" -> reps = atLeast(name, value, 1);
        case "window" -> window = atLeastZero(name, value);
        case "l2-timeout-ms" -> l2 = atLeast(name, value, 1);
        case "strategies" -> plays = strategies(value);
        default -> throw new IllegalArgumentException("unknown release parameter --release-" + name
            + ": use agents, deals, skew, rate, ids-per-request, hot-set-size, preload-rate, "
            + "time-factor, learn-half-lives, hot-sample-period, seed, origin, nodes, "
            + "repetitions, window, l2-timeout-ms or strategies");
      }
      if (o == Origin.EMULATOR && plays.indexOf('f') >= 0) {
        throw new IllegalArgumentException("strategy f (originBudget at the origin's 65 % line) "
            + "needs --release-origin modelled: the emulator has no capacity line; got strategies '"
            + plays + "'");
      }
      return new ReleaseParams(k, n, s, r, ids, hot, preload, f, learn, sample, x, o, nd, reps,
          window, l2, plays);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--release-" + name + " needs a number, got '" + value + "'", e);
    }
  }

  private static int atLeast(String name, String value, int min) {
    int n = Integer.parseInt(value);
    if (n < min) {
      throw new IllegalArgumentException("--release-" + name + " must be at least " + min + ", got " + n);
    }
    return n;
  }

  private static Origin origin(String value) {
    return switch (value) {
      case "emulator" -> Origin.EMULATOR;
      case "modelled" -> Origin.MODELLED;
      default -> throw new IllegalArgumentException("--release-origin must be emulator or "
          + "modelled, got '" + value + "'");
    };
  }

  private static String strategies(String value) {
    if (!value.chars().allMatch(c -> ALL_STRATEGIES.indexOf(c) >= 0) || value.indexOf('a') < 0
        || value.indexOf('e') < 0) {
      throw new IllegalArgumentException("--release-strategies takes letters of " + ALL_STRATEGIES
          + " with a and e among them (the bars compare them), such as 'ae', got '" + value + "'");
    }
    return value;
  }

  /** The strategies to play, in the order of {@link Strategy}. */
  List<Strategy> plays() {
    return Arrays.stream(Strategy.values()).filter(s -> strategies.indexOf(s.letter.charAt(0)) >= 0)
        .toList();
  }

  private static double atLeastZero(String name, String value) {
    double d = Double.parseDouble(value);
    if (!(d >= 0) || Double.isInfinite(d)) {
      throw new IllegalArgumentException("--release-" + name + " must be 0 or more, got " + value);
    }
    return d;
  }

  /** Lookups a second across the fleet. */
  int lookupsPerSecond() {
    return rate * idsPerRequest;
  }

  private static int powerOfTwo(String name, String value) {
    int n = Integer.parseInt(value);
    if (n < 1 || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException("--release-" + name + " must be a power of two (1, 2, 4, "
          + "..., as the agent's sampling needs), got " + n);
    }
    return n;
  }

  private static double positive(String name, String value) {
    double d = Double.parseDouble(value);
    if (!(d > 0)) {
      throw new IllegalArgumentException("--release-" + name + " must be positive, got " + value);
    }
    return d;
  }

  String describe() {
    return String.format(Locale.ROOT, "K=%d pods, %,d deals, Zipf s=%.2f, %,d requests/s of %d ids "
        + "(%,d lookups/s) across the fleet, hotSetSize %,d, preloadRate %s, time compressed %.0f× "
        + "(1 s here = %.0f s of the real practice), agents record 1 in %d lookups in the hot set",
        agents, deals, skew, rate, idsPerRequest, lookupsPerSecond(), hotSetSize,
        preloadRate == 0 ? "sized from the origin" : String.format(Locale.ROOT, "%,d ids/s",
            preloadRate), timeFactor, timeFactor, hotSamplePeriod);
  }

  /** These parameters with {@code hotSetSize}. */
  ReleaseParams withHotSetSize(int ids) {
    return new ReleaseParams(agents, deals, skew, rate, idsPerRequest, ids, preloadRate,
        timeFactor, learnHalfLives, hotSamplePeriod, seed, origin, nodes, repetitions,
        windowSeconds, l2TimeoutMillis, strategies);
  }

  /** These parameters with the preload rate the modelled origin was sized for. */
  ReleaseParams withPreloadRate(int idsPerSecond) {
    return new ReleaseParams(agents, deals, skew, rate, idsPerRequest, hotSetSize, idsPerSecond,
        timeFactor, learnHalfLives, hotSamplePeriod, seed, origin, nodes, repetitions,
        windowSeconds, l2TimeoutMillis, strategies);
  }
}
