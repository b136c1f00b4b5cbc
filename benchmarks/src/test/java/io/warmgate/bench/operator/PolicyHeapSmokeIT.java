package io.warmgate.bench.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quick mode of {@link PolicyHeapBench}, as CI runs it: the operator in its own JVM under the
 * chart's JVM settings, on a real kube-apiserver and Redis, at 50 and then 350 CachePolicies (each
 * on its own Rollout, all Ready). Its live heap after a full GC ({@code jcmd GC.class_histogram})
 * may grow by at most 30 KiB per policy added, the CachePolicy objects included; and once every
 * policy is Ready, an idle window of three Valkey recheck intervals runs no reconciliation and
 * sends Valkey a few commands per endpoint, not per policy.
 */
class PolicyHeapSmokeIT {

  private static final Logger log = LoggerFactory.getLogger(PolicyHeapSmokeIT.class);
  private static final Path OUT = Path.of("target", "policy-heap-smoke");
  static final int FEWER = 50;
  static final int MORE = 350;
  static final Duration IDLE = Duration.ofSeconds(6);
  /** Issue 34's bar: live heap per policy, the CachePolicy itself not counted (here counted). */
  static final double BYTES_PER_POLICY_BAR = 30 * 1024;
  private static PolicyHeapBench.Result result;

  @BeforeAll
  static void measure() throws Exception {
    try (BenchCluster cluster = new BenchCluster().start()) {
      result = new PolicyHeapBench(cluster, OUT).run(FEWER, MORE, IDLE);
    }
    Files.createDirectories(OUT);
    Files.writeString(OUT.resolve("policy-heap.txt"), result.render());
    log.info("{}", result.render());
  }

  @Test
  void eachPolicyCostsTheOperatorsHeapAtMost30KiB() {
    assertThat(result.bytesPerPolicy()).as("live heap bytes per policy added, %d → %d policies; "
        + "see %s", FEWER, MORE, OUT.resolve("policy-heap.txt"))
        .isPositive().isLessThanOrEqualTo(BYTES_PER_POLICY_BAR);
  }

  @Test
  void idleReadyPoliciesAreNotReconciled() {
    // A timed pass per policy would be MORE per recheck interval: about 1,000 here.
    assertThat(result.idleReconciliations()).as("reconciliations of %d idle Ready policies over "
        + "%s", MORE, IDLE).isLessThanOrEqualTo(3);
  }

  @Test
  void idlePoliciesCostValkeyAProbePerEndpointNotPerPolicy() {
    // One endpoint probed each 2 s: PING and INFO, 3 times, and this test's INFO; a probe per
    // policy would be at least 2 × MORE × 3.
    assertThat(result.idleValkeyCommands()).as("Valkey commands over %s, %d policies on one "
        + "endpoint", IDLE, MORE).isLessThanOrEqualTo(20);
  }
}
