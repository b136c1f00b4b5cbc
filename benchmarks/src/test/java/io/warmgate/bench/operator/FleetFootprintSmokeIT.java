package io.warmgate.bench.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.policy.CachePolicyReconciler;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quick mode of {@link FleetFootprintBench}, as CI runs it ({@link FleetSettings#QUICK}: a
 * tenth of the fleet): the operator in its own JVM under the chart's JVM settings, on a real
 * kube-apiserver and Redis, with unrelated Deployments and Secrets, then policies each on its own
 * Rollout, then a restart while pods are admitted. It asserts the bars that do not depend on how
 * fast this machine is: heap and series per policy, the heap the unrelated objects leave alone,
 * no periodic work per policy, and a restart that serves the webhook and reconciles every policy.
 */
class FleetFootprintSmokeIT {

  private static final Logger log = LoggerFactory.getLogger(FleetFootprintSmokeIT.class);
  private static final Path OUT = Path.of("target", "fleet-footprint-smoke");
  private static final FleetSettings FLEET = FleetSettings.QUICK;
  private static FleetResult result;

  @BeforeAll
  static void measure() throws Exception {
    try (BenchCluster cluster = new BenchCluster().start()) {
      result = new FleetFootprintBench(cluster, OUT, false).run(FLEET);
    }
    Files.createDirectories(OUT);
    Files.writeString(OUT.resolve("fleet-footprint.md"), result.render());
    log.info("{}", result.render());
  }

  @Test
  void eachPolicyCostsTheOperatorsHeapAtMost30KiB() {
    assertThat(result.bytesPerPolicy()).as("live heap bytes per policy, %d policies; see %s",
        FLEET.policies(), OUT.resolve("fleet-footprint.md"))
        .isPositive().isLessThanOrEqualTo(FleetResult.BYTES_PER_POLICY_BAR);
  }

  @Test
  void eachPolicyAddsAtMost10MetricSeries() {
    assertThat(result.seriesPerPolicy()).as("series per policy, %d → %d series",
        result.idle().series(), result.loaded().series())
        .isLessThanOrEqualTo(FleetResult.SERIES_PER_POLICY_BAR);
  }

  @Test
  void unrelatedDeploymentsAndSecretsLeaveTheHeapAlone() {
    // Whole Deployments cached would be about 3 KiB each (6 MiB here); identities are far less.
    assertThat(result.unrelatedBytes()).as("live heap moved by %d Deployments and %d Secrets",
        FLEET.deployments(), FLEET.secrets())
        .isLessThanOrEqualTo((long) result.unrelatedBar());
  }

  @Test
  void aSettledFleetCostsNothingPerPolicy() {
    // A timed pass per policy at the 30 s recheck would be about 330 reconciliations in 20 s
    // and 30 Valkey commands per second.
    assertThat(result.steady().reconciliations()).as("reconciliations of %d settled policies "
        + "over %s", FLEET.policies(), FLEET.steady()).isLessThanOrEqualTo(3);
    assertThat(result.steady().valkeyPerSecond()).as("Valkey commands per second")
        .isLessThanOrEqualTo(FleetResult.VALKEY_PER_SECOND_BAR);
  }

  @Test
  void aRestartedOperatorListsTheClustersDeploymentsInPages() {
    // One LIST of every Deployment at once is what ran the operator out of heap at 20,000.
    assertThat(result.restart().deploymentLists()).as("LIST requests for %d Deployments",
        FLEET.deployments())
        .isGreaterThanOrEqualTo(FLEET.deployments() / CachePolicyReconciler.LIST_PAGE);
  }

  @Test
  void aRestartedOperatorServesTheWebhookAndReconcilesEveryPolicy() {
    assertThat(result.restart().injected()).as("admissions configured after the restart")
        .isPositive();
    assertThat(result.restart().timedOut()).as("admissions that took the webhook's timeout")
        .isZero();
    assertThat(result.restart().missedAfterServing())
        .as("admissions left unconfigured once the webhook served").isZero();
  }
}
