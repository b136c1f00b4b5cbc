package io.warmgate.bench.release;

import java.time.Duration;
import java.util.Locale;

/**
 * The knobs of the release benchmark. {@link #full()} is what the report quotes, {@link #quick()}
 * a smoke run sized for CI; each can be overridden with {@code --release-<name> value}.
 *
 * @param agents K, the pods of the fleet (old and new version alike)
 * @param deals deals seeded into the emulator
 * @param skew Zipf exponent s of the traffic
 * @param rate fleet lookups per second, spread evenly over the live pods
 * @param hotSetSize the policy's {@code warmup.hotSetSize}: the most hot ids the gate considers
 * @param preloadRate the policy's {@code warmup.preloadRate}, ids/s (not compressed: it is what
 *     the origin tolerates)
 * @param timeFactor how many seconds of the real practice one second here stands for: TTLs,
 *     half-life, flush intervals, fixed waits and maxWait are divided by it
 * @param learnHalfLives how long the old fleet serves before the first release, in hot-set
 *     half-lives, so that the agents learn the hot set from traffic
 * @param seed popularity and draw seed
 */
record ReleaseParams(int agents, int deals, double skew, int rate, int hotSetSize, int preloadRate,
    double timeFactor, double learnHalfLives, long seed) {

  static ReleaseParams full() {
    return new ReleaseParams(8, 10_000, 1.1, 400, 10_000, 500, 20, 2, 42);
  }

  static ReleaseParams quick() {
    return new ReleaseParams(3, 2_000, 1.1, 150, 10_000, 500, 60, 1, 42);
  }

  /** A duration of the real practice, compressed: {@code real / timeFactor}. */
  Duration scaled(Duration real) {
    return Duration.ofNanos((long) (real.toNanos() / timeFactor));
  }

  /** Returns these parameters with {@code name} set to {@code value}. */
  ReleaseParams with(String name, String value) {
    try {
      return switch (name) {
        case "agents" -> new ReleaseParams(atLeast(name, value, 2), deals, skew, rate, hotSetSize,
            preloadRate, timeFactor, learnHalfLives, seed);
        case "deals" -> new ReleaseParams(agents, atLeast(name, value, 1), skew, rate, hotSetSize,
            preloadRate, timeFactor, learnHalfLives, seed);
        case "skew" -> new ReleaseParams(agents, deals, positive(name, value), rate, hotSetSize,
            preloadRate, timeFactor, learnHalfLives, seed);
        case "rate" -> new ReleaseParams(agents, deals, skew, atLeast(name, value, 1), hotSetSize,
            preloadRate, timeFactor, learnHalfLives, seed);
        case "hot-set-size" -> new ReleaseParams(agents, deals, skew, rate, atLeast(name, value, 1),
            preloadRate, timeFactor, learnHalfLives, seed);
        case "preload-rate" -> new ReleaseParams(agents, deals, skew, rate, hotSetSize,
            atLeast(name, value, 1), timeFactor, learnHalfLives, seed);
        case "time-factor" -> new ReleaseParams(agents, deals, skew, rate, hotSetSize, preloadRate,
            positive(name, value), learnHalfLives, seed);
        case "learn-half-lives" -> new ReleaseParams(agents, deals, skew, rate, hotSetSize,
            preloadRate, timeFactor, positive(name, value), seed);
        case "seed" -> new ReleaseParams(agents, deals, skew, rate, hotSetSize, preloadRate,
            timeFactor, learnHalfLives, Long.parseLong(value));
        default -> throw new IllegalArgumentException("unknown release parameter --release-" + name
            + ": use agents, deals, skew, rate, hot-set-size, preload-rate, time-factor, "
            + "learn-half-lives or seed");
      };
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

  private static double positive(String name, String value) {
    double d = Double.parseDouble(value);
    if (!(d > 0)) {
      throw new IllegalArgumentException("--release-" + name + " must be positive, got " + value);
    }
    return d;
  }

  String describe() {
    return String.format(Locale.ROOT, "K=%d pods, %,d deals, Zipf s=%.2f, %,d lookups/s across the "
        + "fleet, hotSetSize %,d, preloadRate %,d ids/s, time compressed %.0f× (1 s here = %.0f s of"
        + " the real practice)", agents, deals, skew, rate, hotSetSize, preloadRate, timeFactor,
        timeFactor);
  }
}
