package io.warmgate.bench.freshness;

import java.util.Locale;

/**
 * The knobs of the freshness benchmark. {@link #full()} is what the report quotes,
 * {@link #quick()} a smoke run sized for CI; each can be overridden with
 * {@code --freshness-<name> value}.
 *
 * @param agents K, the pods of the fleet, each with its own L1 and a change stream watcher (one
 *     of them reads the stream)
 * @param deals deals seeded into the emulator, all cached in L2 and every L1 before the changes
 * @param skew Zipf exponent s of the lookups and of which deals change (popular deals are both
 *     read and edited more)
 * @param lookupsPerSecond the fleet's lookups per second, spread evenly over the pods
 * @param changesPerSecond committed changes per second. Each costs the emulator at least one Deal
 *     JOIN of about 300 ms (its cost is per query), and the fleet without the fill lease up to K:
 *     one a second keeps even that under the emulator's capacity of about 6.7 queries a second
 * @param changes changes committed per fleet
 * @param seed popularity and draw seed
 */
record FreshnessParams(int agents, int deals, double skew, int lookupsPerSecond,
    double changesPerSecond, int changes, long seed) {

  static FreshnessParams full() {
    return new FreshnessParams(4, 2_000, 1.1, 1_000, 1, 60, 42);
  }

  static FreshnessParams quick() {
    return new FreshnessParams(2, 300, 1.1, 200, 2, 6, 42);
  }

  /** Returns these parameters with {@code name} set to {@code value}. */
  FreshnessParams with(String name, String value) {
    try {
      return switch (name) {
        case "agents" -> new FreshnessParams(atLeast(name, value, 2), deals, skew,
            lookupsPerSecond, changesPerSecond, changes, seed);
        case "deals" -> new FreshnessParams(agents, atLeast(name, value, 100), skew,
            lookupsPerSecond, changesPerSecond, changes, seed);
        case "skew" -> new FreshnessParams(agents, deals, positive(name, value),
            lookupsPerSecond, changesPerSecond, changes, seed);
        case "lookups" -> new FreshnessParams(agents, deals, skew, atLeast(name, value, 1),
            changesPerSecond, changes, seed);
        case "change-rate" -> new FreshnessParams(agents, deals, skew, lookupsPerSecond,
            positive(name, value), changes, seed);
        case "changes" -> new FreshnessParams(agents, deals, skew, lookupsPerSecond,
            changesPerSecond, atLeast(name, value, 1), seed);
        case "seed" -> new FreshnessParams(agents, deals, skew, lookupsPerSecond,
            changesPerSecond, changes, Long.parseLong(value));
        default -> throw new IllegalArgumentException("unknown setting --freshness-" + name
            + ": use agents, deals, skew, lookups, change-rate, changes or seed");
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--freshness-" + name + " " + value + " is not a number",
          e);
    }
  }

  String describe() {
    return String.format(Locale.ROOT, "K=%d pods, %,d deals, s=%.1f, %,d lookups/s, %s "
        + "change(s)/s, %d changes", agents, deals, skew, lookupsPerSecond,
        changesPerSecond == Math.rint(changesPerSecond)
            ? Long.toString((long) changesPerSecond) : Double.toString(changesPerSecond),
        changes);
  }

  private static int atLeast(String name, String value, int min) {
    int n = Integer.parseInt(value.trim());
    if (n < min) {
      throw new IllegalArgumentException("--freshness-" + name + " must be at least " + min
          + ", got " + value);
    }
    return n;
  }

  private static double positive(String name, String value) {
    double x = Double.parseDouble(value.trim());
    if (!(x > 0)) {
      throw new IllegalArgumentException("--freshness-" + name + " must be positive, got "
          + value);
    }
    return x;
  }
}
