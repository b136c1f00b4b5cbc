package io.warmgate.agent.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.deal.Deal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * L2 SIGKILLed under a steady ~1,000 lookups/s, then restarted (empty) on the same ports: the
 * redis-server, or every node of the cluster at once (the whole cluster down).
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class RedisKillIT {

  @RegisterExtension
  final L2Extension valkey;

  RedisKillIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @Test
  void killAndRestartFailsNoLookupLoadsEachIdOncePerPodAndL2IsBackWithinSeconds() {
    try (RedisFaultFixture pods = new RedisFaultFixture(valkey.endpoint())) {
      LoadDriver<Deal> load = pods.startLoad("steady");
      LoadDriver.hold(3_000);
      long[] originBefore = {pods.a.origin.keys(), pods.b.origin.keys()};
      long steadyL2Hits = pods.l2Hits();

      Phase outage = load.phase("outage");
      valkey.stop(); // SIGKILL
      List<Boolean> breakerOpened = pods.watchBreakers(3_000);
      long[] originInOutage = {pods.a.origin.keys() - originBefore[0], pods.b.origin.keys() - originBefore[1]};
      long skipped = pods.a.count("warmgate.l2.skipped") + pods.b.count("warmgate.l2.skipped");

      Phase recovery = load.phase("recovery");
      valkey.start();
      double[] l2BackAfter = pods.awaitL2InUse(1);
      LoadDriver.hold(2_000);
      List<Phase> phases = load.stop();
      long[] originInRecovery = {
          pods.a.origin.keys() - originBefore[0] - originInOutage[0],
          pods.b.origin.keys() - originBefore[1] - originInOutage[1]};

      pods.printFigures();
      System.out.printf(valkey.mode() + " outage: origin keys a=%d b=%d, distinct ids looked up a=%d b=%d; recovery:"
              + " origin keys a=%d b=%d, distinct ids a=%d b=%d; breakers closed %.2f s and L2 hits again %.2f s after restart;"
              + " keys in L2 at the end %d; ids loaded twice a=%d b=%d%n",
          originInOutage[0], originInOutage[1], outage.ids(0).size(), outage.ids(1).size(),
          originInRecovery[0], originInRecovery[1], recovery.ids(0).size(), recovery.ids(1).size(),
          l2BackAfter[0], l2BackAfter[1], valkey.strings().dbsize(), pods.a.origin.idsLoadedTwice(), pods.b.origin.idsLoadedTwice());

      assertThat(phases).allSatisfy(p -> assertThat(p.failures()).as(p.toString()).isZero());
      assertThat(steadyL2Hits).as("L2 answered L1 misses before the fault").isGreaterThan(100);
      assertThat(breakerOpened).as("both breakers opened").containsExactly(true, true);
      assertThat(skipped).as("L2 calls skipped while open").isPositive();
      for (Pod<Deal> pod : pods.pods()) {
        // L1 keeps what it loaded for the whole run, so one load per id per pod, whatever L2 does.
        assertThat(pod.origin.maxLoadsOfOneId()).as("most loads of one id in %s", pod.name).isEqualTo(1);
      }
      // A lookup begun in the phase before may load in this one: at most one per load thread.
      int inFlight = RedisFaultFixture.THREADS_PER_POD;
      for (int pod = 0; pod < 2; pod++) {
        assertThat(originInOutage[pod]).as("origin loads of pod %d in the outage", pod)
            .isPositive()
            .isLessThanOrEqualTo(outage.ids(pod).size() + inFlight);
        assertThat(originInRecovery[pod]).as("origin loads of pod %d after the restart", pod)
            .isLessThanOrEqualTo(recovery.ids(pod).size() + inFlight);
      }
      assertThat(outage.lookups()).as("the load kept its rate").isGreaterThan(2_000);
    }
  }
}
