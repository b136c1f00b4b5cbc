package io.warmgate.bench.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * K fresh agents take one Zipf trace at once, each its own rotation of it (same keys and
 * popularity, its own order, as pods behind a load balancer see). Seven fleets, one after the
 * other on the same emulator and an emptied Redis:
 * <ul>
 *   <li>L1 only: every pod loads every key it sees (today's practice);
 *   <li>L1 + L2, no fill lease: the pods share L2 but start cold together, and two pods missing
 *       one key together both read the origin;
 *   <li>L1 + L2 with the fill lease (the default): a pod that finds another pod's lease on a
 *       missed key waits for its value in L2 while the holder reads;
 *   <li>shared L2 without and with the fill lease again, with a slow origin, calls of 3 s and of
 *       12 s: a stand-in, each call sleeps that
 *       long before its real read of the emulator, as a call to an overloaded database waits its
 *       turn. 3 s is longer than the fill wait used to be (2 s), 12 s longer than the lease TTL
 *       (5 s). Each agent serves {@value #SLOW_CALLERS} requests at once, with as many loader
 *       threads, as a pod under load does; one at a time, a 12 s origin would take the whole
 *       trace's length times 12 s.
 * </ul>
 * What the rollout gate's preload adds is the release benchmark's subject, with the real operator.
 * The agents' clock stands still, so nothing expires during a run: every repeated read is a
 * duplicate the architecture caused, not a TTL. Every row divides its origin reads by the same
 * denominator, the distinct ids of the trace.
 */
final class ColdStartBench {

  /** Requests each agent serves at once in the slow-origin fleets, and its loader threads. */
  static final int SLOW_CALLERS = 8;

  enum Mode {
    L1_ONLY("L1 only (each pod alone)", Duration.ZERO),
    L1_L2("L1 + shared L2, cold, no fill lease", Duration.ZERO),
    L1_L2_LEASE("L1 + shared L2, cold, fill lease", Duration.ZERO),
    L1_L2_SLOW_3S("L1 + shared L2, cold, no fill lease, origin calls of 3 s (stand-in)",
        Duration.ofSeconds(3)),
    L1_L2_LEASE_SLOW_3S("L1 + shared L2, cold, fill lease, origin calls of 3 s (stand-in)",
        Duration.ofSeconds(3)),
    L1_L2_SLOW_12S("L1 + shared L2, cold, no fill lease, origin calls of 12 s (stand-in)",
        Duration.ofSeconds(12)),
    L1_L2_LEASE_SLOW_12S("L1 + shared L2, cold, fill lease, origin calls of 12 s (stand-in)",
        Duration.ofSeconds(12));

    final String label;
    /** How long the stand-in makes each origin call wait before its real read; zero: none. */
    final Duration originDelay;

    Mode(String label, Duration originDelay) {
      this.label = label;
      this.originDelay = originDelay;
    }

    /** Whether the fill lease's bar (≤ 1.02 reads per requested distinct id) applies. */
    boolean leased() {
      return this == L1_L2_LEASE || this == L1_L2_LEASE_SLOW_3S || this == L1_L2_LEASE_SLOW_12S;
    }

    boolean slow() {
      return !originDelay.isZero();
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
    fixture.origin().slowDown(mode.originDelay);
    ManualClock clock = new ManualClock();
    List<ExecutorService> loaders = new ArrayList<>();
    List<FleetAgent> agents = fixture.agents(mode.name().toLowerCase(), p.agents(),
        mode != Mode.L1_ONLY, clock, b -> {
          if (mode != Mode.L1_ONLY && !mode.leased()) {
            b.fillWait(Duration.ZERO);
          }
          if (mode.slow()) {
            ExecutorService pool = Executors.newFixedThreadPool(SLOW_CALLERS);
            loaders.add(pool);
            b.executor(pool);
          }
          return b;
        });
    try {
      int share = Math.max(1, p.requests() / p.agents());
      Replay.Outcome replay = Replay.run(agents, i -> trace.rotated(i * share),
          mode.slow() ? SLOW_CALLERS : 1);
      return new Result(mode, (long) trace.lookups() * p.agents(), trace.distinctIds().size(),
          fixture.origin().calls(), fixture.origin().ids(), fixture.origin().distinctIds(),
          fixture.wire().queries(), fixture.wire().ids(), FleetAgent.l2Errors(agents),
          FleetAgent.meanOriginMillis(agents), replay.failures(), replay.seconds(),
          replay.p99Millis());
    } finally {
      agents.forEach(FleetAgent::close);
      loaders.forEach(ExecutorService::shutdownNow);
      fixture.origin().slowDown(Duration.ZERO);
    }
  }
}
