package io.warmgate.bench.fleet;

import java.util.Locale;

/**
 * The knobs of the fleet benchmarks. {@link #full()} is what the report quotes; {@link #quick()} is
 * a smoke run sized for CI. Each can be overridden with {@code --name value} arguments.
 *
 * @param agents K, the number of agents in a fleet
 * @param deals deals seeded into the emulator (the key space)
 * @param skew Zipf exponent s of the trace
 * @param requests requests in the trace each agent replays
 * @param idsPerRequest deal ids per request (one {@code getAll})
 * @param stampedeKeys hot keys the expiry benchmark holds
 * @param stampedeCycles L2 TTL cycles the expiry benchmark runs through
 * @param preloadIds ids the preload benchmark loads through the warm job
 * @param perKeyIds ids loaded one {@code get} at a time for the comparison (the emulator is slow
 *     per query, so fewer)
 * @param seed the trace's random seed
 */
record FleetParams(int agents, int deals, double skew, int requests, int idsPerRequest,
    int stampedeKeys, int stampedeCycles, int preloadIds, int perKeyIds, long seed) {

  static FleetParams full() {
    return new FleetParams(8, 10_000, 1.1, 100, 10, 200, 3, 2_000, 60, 42);
  }

  static FleetParams quick() {
    return new FleetParams(3, 2_000, 1.1, 20, 5, 30, 2, 200, 10, 42);
  }

  /** Returns these parameters with {@code name} set to {@code value}. */
  FleetParams with(String name, String value) {
    try {
      return switch (name) {
        case "agents" -> new FleetParams(positive(name, value), deals, skew, requests, idsPerRequest,
            stampedeKeys, stampedeCycles, preloadIds, perKeyIds, seed);
        case "deals" -> new FleetParams(agents, positive(name, value), skew, requests, idsPerRequest,
            stampedeKeys, stampedeCycles, preloadIds, perKeyIds, seed);
        case "skew" -> new FleetParams(agents, deals, Double.parseDouble(value), requests,
            idsPerRequest, stampedeKeys, stampedeCycles, preloadIds, perKeyIds, seed);
        case "requests" -> new FleetParams(agents, deals, skew, positive(name, value), idsPerRequest,
            stampedeKeys, stampedeCycles, preloadIds, perKeyIds, seed);
        case "seed" -> new FleetParams(agents, deals, skew, requests, idsPerRequest, stampedeKeys,
            stampedeCycles, preloadIds, perKeyIds, Long.parseLong(value));
        default -> throw new IllegalArgumentException("unknown fleet parameter --" + name
            + ": use --agents, --deals, --skew, --requests or --seed");
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " needs a number, got '" + value + "'", e);
    }
  }

  private static int positive(String name, String value) {
    int n = Integer.parseInt(value);
    if (n < 1) {
      throw new IllegalArgumentException("--" + name + " must be at least 1, got " + n);
    }
    return n;
  }

  String describe() {
    return String.format(Locale.ROOT, "K=%d agents, %,d deals, Zipf s=%.2f, %d requests × %d ids per"
        + " agent", agents, deals, skew, requests, idsPerRequest);
  }
}
