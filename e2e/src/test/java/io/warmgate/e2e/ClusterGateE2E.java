package io.warmgate.e2e;

import io.warmgate.testing.KwokClusterExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rollout gate end to end with a Valkey cluster as L2, as Memorystore for Valkey and other
 * managed Valkey run: a Redis cluster of three primaries and three replicas, the policy in
 * {@code mode: Cluster} listing three seed nodes, the agents' cluster mode injected by the webhook,
 * and the operator reading warm jobs, hot set and stats through its cluster client. The rest is
 * {@link RolloutGateE2E}'s stack: kwok, the real Argo Rollouts controller, the Spanner emulator.
 */
class ClusterGateE2E {

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.withValkeyCluster();

  private static final int DEALS = 2_000;

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  @Test
  void schemaChangeIsHeldPreloadedAndReleasedOnceWarmOnAValkeyCluster() throws Exception {
    RolloutGateE2E.schemaChangeIsHeldPreloadedAndReleasedOnceWarm(scenario, "e2e-cluster");
  }
}
