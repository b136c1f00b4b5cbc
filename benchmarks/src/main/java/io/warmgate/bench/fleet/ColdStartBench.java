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
 *   <li>L1 + L2, no fill lease: the pods share L2 but start cold together, and two pods missing
 *       one key together both read the origin;
 *   <li>L1 + L2 with the fill lease (the default): a pod that finds another pod's lease on a
 *       missed key waits a bounded time for its value in L2.
 * </ul>
 * What the rollout gate's preload adds is the release benchmark's subject, with the real operator.
 * The agents' clock stands still, so nothing expires during a run: every repeated read is a
 * duplicate the architecture caused, not a TTL. Every row divides its origin reads by the same
 * denominator, the distinct ids of the trace.
 */
final class ColdStartBench {

  enum Mode {
    L1_ONLY("L1 only (each pod alone)"),
    L1_L2("L1 + shared L2, cold, no fill lease"),
    L1_L2_LEASE("L1 + shared L2, cold, fill lease");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /**
   * One fleet's counts. {@code originIds} is what the loaders asked for, {@code wireIds} what
   * reached the emulator.
   */
  record Result(Mode mode, long lookups, long traceDistinct, long originCalls, long originIds,
      long originDistinct, long wireQueries, long wireIds, long l2Errors, double originMillis,
      long failures, double seconds, double p99Millis) {

    /** Origin ids read per distinct id of the trace: the same denominator in every row. */
    double readsPerDistinctKey() {
      return traceDistinct == 0 ? 0 : (double) originIds / traceDistinct;
    }

    boolean countsAgree() {
      return originIds == wireIds && originCalls == wireQueries;
    }
  }

  private ColdStartBench() {}

  static List<Result> run(FleetFixture fixture, FleetParams p) throws InterruptedException {
    ZipfTrace trace = ZipfTrace.generate(fixture.deals(), p.skew(), p.requests(), p.idsPerRequest(),
        p.seed(), p.seed());
    List<Result> results = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      results.add(runFleet(fixture, p, mode, trace));
    }
    return results;
  }

  private static Result runFleet(FleetFixture fixture, FleetParams p, Mode mode, ZipfTrace trace)
      throws InterruptedException {
    fixture.reset();
    ManualClock clock = new ManualClock();
    List<FleetAgent> agents = fixture.agents(mode.name().toLowerCase(), p.agents(),
        mode != Mode.L1_ONLY, clock, b -> mode == Mode.L1_L2 ? b.fillWait(Duration.ZERO) : b);
    try {
      int share = Math.max(1, p.requests() / p.agents());
      Replay.Outcome replay = Replay.run(agents, i -> trace.rotated(i * share));
      return new Result(mode, (long) trace.lookups() * p.agents(), trace.distinctIds().size(),
          fixture.origin().calls(), fixture.origin().ids(), fixture.origin().distinctIds(),
          fixture.wire().queries(), fixture.wire().ids(), FleetAgent.l2Errors(agents),
          FleetAgent.meanOriginMillis(agents), replay.failures(), replay.seconds(),
          replay.p99Millis());
    } finally {
      agents.forEach(FleetAgent::close);
    }
  }
}
