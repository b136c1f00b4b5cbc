package io.warmgate.bench.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * K fresh agents take one Zipf trace at once, each its own rotation of it (same keys and
 * popularity, its own order, as pods behind a load balancer see). Three fleets, one after the
 * other on the same emulator and an emptied Redis:
 * <ul>
 *   <li>L1 only: every pod loads every key it sees (today's practice);
 *   <li>L1 + L2: the pods share L2 but start cold together;
 *   <li>warmgate: the rollout gate first has the canary preload the hot set (sampled from the
 *       previous version's traffic, another trace of the same distribution) into the new
 *       namespace, then the fleet starts.
 * </ul>
 * The agents' clock stands still, so nothing expires during a run: every repeated read is a
 * duplicate the architecture caused, not a TTL.
 */
final class ColdStartBench {

  enum Mode {
    L1_ONLY("L1 only (each pod alone)"),
    L1_L2("L1 + shared L2, cold"),
    WARMGATE("warmgate (gate preload, then the fleet)");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /**
   * One fleet's counts. {@code originIds} is what the loaders asked for, {@code wireIds} what
   * reached the emulator; {@code preloadIds} is the part of {@code originIds} the warm job read.
   */
  record Result(Mode mode, long lookups, long traceDistinct, long originCalls, long originIds,
      long originDistinct, long wireQueries, long wireIds, long preloadIds, double preloadSeconds,
      long l2Errors, double originMillis, long failures, double seconds) {

    double readsPerDistinctKey() {
      return originDistinct == 0 ? 0 : (double) originIds / originDistinct;
    }

    boolean countsAgree() {
      return originIds == wireIds && originCalls == wireQueries;
    }
  }

  private ColdStartBench() {}

  static List<Result> run(FleetFixture fixture, FleetParams p) throws InterruptedException {
    ZipfTrace trace = ZipfTrace.generate(fixture.deals(), p.skew(), p.requests(), p.idsPerRequest(),
        p.seed(), p.seed());
    // The previous version's traffic: the same popularity, other draws, the whole fleet's volume.
    ZipfTrace previous = ZipfTrace.generate(fixture.deals(), p.skew(), p.requests() * p.agents(),
        p.idsPerRequest(), p.seed(), p.seed() + 1);
    List<Result> results = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      results.add(runFleet(fixture, p, mode, trace, previous));
    }
    return results;
  }

  private static Result runFleet(FleetFixture fixture, FleetParams p, Mode mode, ZipfTrace trace,
      ZipfTrace previous) throws InterruptedException {
    fixture.reset();
    ManualClock clock = new ManualClock();
    List<FleetAgent> agents = fixture.agents(mode.name().toLowerCase(), p.agents(),
        mode != Mode.L1_ONLY, clock, b -> b);
    try {
      long preloadIds = 0;
      double preloadSeconds = 0;
      if (mode == Mode.WARMGATE) {
        try (Preloader preloader = new Preloader(fixture.redis().uri(), clock)) {
          preloader.recordHotSet(agents.get(0).cache(), previous.requests());
          Preloader.Outcome warm = preloader.preload(agents.get(0).cache(), Preloader.HOT_SET_SIZE,
              Preloader.RATE, Duration.ofMinutes(10));
          preloadIds = fixture.origin().ids();
          preloadSeconds = warm.seconds();
        }
      }
      int share = Math.max(1, p.requests() / p.agents());
      Replay.Outcome replay = Replay.run(agents, i -> trace.rotated(i * share));
      return new Result(mode, (long) trace.lookups() * p.agents(), trace.distinctIds().size(),
          fixture.origin().calls(), fixture.origin().ids(), fixture.origin().distinctIds(),
          fixture.wire().queries(), fixture.wire().ids(), preloadIds, preloadSeconds,
          FleetAgent.l2Errors(agents), FleetAgent.meanOriginMillis(agents), replay.failures(),
          replay.seconds());
    } finally {
      agents.forEach(FleetAgent::close);
    }
  }
}
