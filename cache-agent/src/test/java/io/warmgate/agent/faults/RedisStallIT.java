package io.warmgate.agent.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.RedisConnectionExtension;
import io.warmgate.agent.deal.Deal;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * L2 frozen with SIGSTOP (connections stay open, nothing is answered: slower than any budget)
 * under a steady ~1,000 lookups/s with the default 20 ms L2 budget, then thawed with SIGCONT.
 */
class RedisStallIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  final RedisConnectionExtension valkey = new RedisConnectionExtension(redis);

  @Test
  void stalledL2OpensTheBreakerKeepsLatencyBoundedAndIsUsedAgainWhenThawed() {
    long pid = RedisSignals.pid(valkey.sync());
    try (RedisFaultFixture pods = new RedisFaultFixture(ValkeyEndpoint.standalone(redis.uri()))) {
      LoadDriver<Deal> load = pods.startLoad("steady");
      LoadDriver.hold(3_000);
      long timeoutsBefore = timeouts(pods);

      Phase stall = load.phase("stalled");
      List<Boolean> breakerOpened;
      RedisSignals.stop(pid);
      try {
        breakerOpened = pods.watchBreakers(4_000);
      } finally {
        RedisSignals.resume(pid);
      }
      long timeoutsInStall = timeouts(pods) - timeoutsBefore;

      load.phase("thawed");
      double[] l2BackAfter = pods.awaitL2InUse(200);
      LoadDriver.hold(2_000);
      List<Phase> phases = load.stop();

      pods.printFigures();
      System.out.printf("stall: L2 timeouts %d; breakers closed %.2f s and L2 hits again %.2f s after SIGCONT%n",
          timeoutsInStall, l2BackAfter[0], l2BackAfter[1]);

      assertThat(phases).allSatisfy(p -> assertThat(p.failures()).as(p.toString()).isZero());
      assertThat(breakerOpened).as("both breakers opened").containsExactly(true, true);
      assertThat(timeoutsInStall).as("L2 calls cut at the budget").isPositive();
      assertThat(stall.percentileMillis(99)).as("p99 while L2 is frozen, ms").isLessThan(500);
      assertThat(stall.lookups() / stall.seconds()).as("lookups/s while L2 is frozen")
          .isGreaterThan(0.6 * RedisFaultFixture.RATE);
    }
  }

  private static long timeouts(RedisFaultFixture pods) {
    return pods.a.count("warmgate.l2.errors", "kind", "timeout")
        + pods.b.count("warmgate.l2.errors", "kind", "timeout");
  }
}
