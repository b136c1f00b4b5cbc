package io.warmgate.agent.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.WarmGate;
import io.warmgate.agent.deal.Deal;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults of a Valkey cluster (three primaries, three replicas) under two pods' steady ~1,000
 * lookups/s: the load of {@link L2OutageOriginLoadIT} (Zipf over {@value #DEALS} deals, short
 * TTLs so that the origin is read in steady state too). A primary SIGKILLed and replaced by its
 * replica; a third of the slots moved to another primary, keys and all, while serving. No lookup
 * fails, origin reads/s stay within {@value #MAX_MULTIPLE}x steady state (the bar of a whole L2
 * outage) until L2 errors have stopped, and then L2 answers without error. Each test prints its
 * phases and figures, and a failed assertion repeats them.
 */
class ClusterFaultsIT {

  /** A cluster of its own: the tests kill nodes and move slots. */
  @RegisterExtension
  static final RedisClusterExtension cluster = new RedisClusterExtension();

  private static final int DEALS = 10_000;
  private static final String[] BREAKER = {"closed", "open", "half-open"};
  static final double MAX_MULTIPLE = 2;
  private static final UnaryOperator<WarmGate<Deal>> SETTINGS = w -> w
      .l1Ttl(Duration.ofSeconds(2)).l2Ttl(Duration.ofSeconds(30))
      .refreshAhead(Duration.ofSeconds(10)).maxStaleness(Duration.ofSeconds(60))
      .staleIfError(Duration.ofSeconds(60))
      // As L2OutageOriginLoadIT: a loaded 2-core machine would time out the default 20 ms.
      .l2Timeout(Duration.ofMillis(250));

  @BeforeEach
  void empty() {
    cluster.flushAll();
  }

  /** Two pods under load, and the origin reads counted at each phase boundary. */
  private static final class Run implements AutoCloseable {
    final Pod<Deal> a;
    final Pod<Deal> b;
    final LoadDriver<Deal> load;

    Run() {
      InMemoryDeals origin = new InMemoryDeals(DEALS, 2);
      ValkeyEndpoint valkey = ValkeyEndpoint.cluster(cluster.uris().toArray(String[]::new));
      a = Pod.start("pod-a", origin, valkey, SETTINGS);
      b = Pod.start("pod-b", origin, valkey, SETTINGS);
      load = LoadDriver.start(List.of(a.cache, b.cache),
          KeyChooser.zipf(InMemoryDeals.ids(DEALS), 0.9), 1_000, 3,
          (id, deal) -> deal != null && deal.dealId().equals(id), "warm-up");
    }

    long originReads() {
      return a.origin.keys() + b.origin.keys();
    }

    long l2Hits() {
      return a.l2Hits() + b.l2Hits();
    }

    long l2Errors() {
      return a.count("warmgate.l2.errors", "kind", "failure")
          + a.count("warmgate.l2.errors", "kind", "timeout") + a.count("warmgate.l2.skipped")
          + b.count("warmgate.l2.errors", "kind", "failure")
          + b.count("warmgate.l2.errors", "kind", "timeout") + b.count("warmgate.l2.skipped");
    }

    /** Holds the load until L2 errors have stopped for {@code quietMillis} (at most 30 s). */
    void awaitL2Quiet(long quietMillis) {
      long start = System.nanoTime();
      long errors = l2Errors();
      long lastChange = System.nanoTime();
      while (System.nanoTime() - lastChange < quietMillis * 1_000_000
          && System.nanoTime() - start < 30_000_000_000L) {
        LoadDriver.hold(20);
        long now = l2Errors();
        if (now != errors) {
          errors = now;
          lastChange = System.nanoTime();
        }
      }
      lastError = lastChange;
    }

    long lastError;

    /** Both pods' figures, one line each. */
    String figures() {
      return a.figures() + System.lineSeparator() + b.figures();
    }

    /** L2 answered, and without error, between the counts {@code from} and {@code to}. */
    static void assertL2Answered(long[] from, long[] to, String after, String report) {
      assertThat(to[1] - from[1]).as("L2 answers after %s%n%s", after, report).isGreaterThan(100);
      assertThat(to[2] - from[2]).as("no L2 error after %s%n%s", after, report).isZero();
    }

    /**
     * Notes, until the returned thread is interrupted, when each pod's L2 breaker changes state,
     * in ms since {@code sinceNanos}.
     */
    Thread watchBreakers(long sinceNanos, List<String> timeline) {
      Thread watch = new Thread(() -> {
        int[] states = {a.breakerState(), b.breakerState()};
        while (!Thread.currentThread().isInterrupted()) {
          int[] now = {a.breakerState(), b.breakerState()};
          for (int i = 0; i < 2; i++) {
            if (now[i] != states[i]) {
              timeline.add(String.format("%d ms %s %s", (System.nanoTime() - sinceNanos)
                  / 1_000_000, i == 0 ? "pod-a" : "pod-b", BREAKER[now[i]]));
              states[i] = now[i];
            }
          }
          try {
            Thread.sleep(10);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "breaker-watch");
      watch.setDaemon(true);
      watch.start();
      return watch;
    }

    @Override
    public void close() {
      load.stop();
      a.close();
      b.close();
    }
  }

  @Test
  void aPrimaryKilledAndReplacedByItsReplicaFailsNoLookupAndKeepsTheOriginLoadBounded() {
    try (Run run = new Run()) {
      LoadDriver.hold(8_000);
      long[] steadyStart = {run.originReads(), run.l2Hits(), run.l2Errors()};
      Phase steady = run.load.phase("steady");
      LoadDriver.hold(5_000);
      long[] atKill = {run.originReads(), run.l2Hits(), run.l2Errors()};

      RedisCluster.Node victim = cluster.primaries().get(0);
      Phase failover = run.load.phase("failover");
      long killNanos = System.nanoTime();
      List<String> timeline = new CopyOnWriteArrayList<>();
      Thread watch = run.watchBreakers(killNanos, timeline);
      cluster.kill(victim);
      Duration promoted = cluster.awaitHealthy(Duration.ofSeconds(30));
      run.awaitL2Quiet(2_000);
      watch.interrupt();
      long l2BackMillis = (run.lastError - killNanos) / 1_000_000;
      long[] atBack = {run.originReads(), run.l2Hits(), run.l2Errors()};
      double failoverSeconds = (System.nanoTime() - killNanos) / 1e9;

      Phase after = run.load.phase("after");
      LoadDriver.hold(3_000);
      long[] atEnd = {run.originReads(), run.l2Hits(), run.l2Errors()};
      List<Phase> phases = run.load.stop();
      cluster.restart(victim); // back as a replica of the node that replaced it

      double steadyRate = (atKill[0] - steadyStart[0]) / steady.seconds();
      double failoverRate = (atBack[0] - atKill[0]) / failoverSeconds;
      double afterRate = (atEnd[0] - atBack[0]) / after.seconds();
      String report = String.format("%s%nbreakers after the kill: %s%nprimary %d killed: "
              + "replica promoted and cluster healthy after %d ms, agents' L2 errors stopped %d ms "
              + "after the kill; origin reads/s steady %.1f, failover %.1f (%.2fx), after %.1f; L2 "
              + "errors during failover %d; L2 hits steady %d, failover %d, after %d",
          run.figures(), timeline, victim.port(), promoted.toMillis(),
          l2BackMillis, steadyRate, failoverRate, failoverRate / steadyRate, afterRate,
          atBack[2] - atKill[2], atKill[1] - steadyStart[1], atBack[1] - atKill[1],
          atEnd[1] - atBack[1]);
      System.out.println(report);

      assertThat(phases).allSatisfy(p -> assertThat(p.failures()).as(p.toString()).isZero());
      assertThat(steadyRate).as("the origin is read in steady state").isPositive();
      assertThat(failoverRate).as("origin reads/s during failover vs %.1f/s steady", steadyRate)
          .isLessThanOrEqualTo(MAX_MULTIPLE * steadyRate);
      Run.assertL2Answered(atBack, atEnd, "the failover", report);
      assertThat(failover.lookups()).as("the load kept its rate").isGreaterThan(1_000);
    }
  }

  @Test
  void aThirdOfTheSlotsMovedWhileServingFailsNoLookup() {
    try (Run run = new Run()) {
      LoadDriver.hold(8_000);
      long[] steadyStart = {run.originReads(), run.l2Hits(), run.l2Errors()};
      Phase steady = run.load.phase("steady");
      LoadDriver.hold(5_000);
      long[] atMove = {run.originReads(), run.l2Hits(), run.l2Errors()};

      RedisCluster.Node target = cluster.primaries().get(0);
      Phase moving = run.load.phase("resharding");
      long moveNanos = System.nanoTime();
      List<String> timeline = new CopyOnWriteArrayList<>();
      Thread watch = run.watchBreakers(moveNanos, timeline);
      Duration took = cluster.moveSlots(RedisCluster.SLOTS / 3, target);
      // A breaker that opened on timeouts while keys were migrating (a loaded machine) skips L2
      // for its wait: measure "after" once L2 answers again, as after a failover.
      run.awaitL2Quiet(2_000);
      watch.interrupt();
      long[] atBack = {run.originReads(), run.l2Hits(), run.l2Errors()};
      String l2Back = atBack[2] == atMove[2] ? "no L2 error"
          : "agents' L2 errors stopped " + (run.lastError - moveNanos) / 1_000_000
              + " ms after the move began";

      Phase after = run.load.phase("after");
      LoadDriver.hold(3_000);
      long[] atEnd = {run.originReads(), run.l2Hits(), run.l2Errors()};
      List<Phase> phases = run.load.stop();

      double steadyRate = (atMove[0] - steadyStart[0]) / steady.seconds();
      double movingRate = (atBack[0] - atMove[0]) / moving.seconds();
      double afterRate = (atEnd[0] - atBack[0]) / after.seconds();
      String report = String.format("%s%nbreakers from the move on: %s%n%d slots moved to %d "
              + "in %d ms while serving, %s; "
              + "origin reads/s steady %.1f, resharding until L2 was quiet %.1f (%.2fx), after %.1f; L2 "
              + "errors resharding %d, after %d; L2 hits steady %d, resharding %d, after %d",
          run.figures(), timeline, RedisCluster.SLOTS / 3, target.port(),
          took.toMillis(), l2Back, steadyRate, movingRate, movingRate / steadyRate,
          afterRate, atBack[2] - atMove[2], atEnd[2] - atBack[2], atMove[1] - steadyStart[1],
          atBack[1] - atMove[1], atEnd[1] - atBack[1]);
      System.out.println(report);

      assertThat(phases).allSatisfy(p -> assertThat(p.failures()).as(p.toString()).isZero());
      assertThat(cluster.primaries()).filteredOn(n -> n.port() == target.port()).singleElement()
          .satisfies(n -> assertThat(n.slots()).isGreaterThan(RedisCluster.SLOTS * 2 / 3 - 2));
      assertThat(movingRate).as("origin reads/s while resharding vs %.1f/s steady", steadyRate)
          .isLessThanOrEqualTo(MAX_MULTIPLE * steadyRate);
      Run.assertL2Answered(atBack, atEnd, "the move", report);
    }
  }
}
