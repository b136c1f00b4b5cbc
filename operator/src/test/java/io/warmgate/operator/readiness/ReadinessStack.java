package io.warmgate.operator.readiness;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stack of the readiness ITs: a real API server, the operator without Argo Rollouts' CRDs,
 * a real Redis, and the {@link ReadinessFixture} over them. Each IT plays its workload's
 * controller and the agents.
 */
abstract class ReadinessStack {

  /** How long a held pod is watched staying unready. */
  static final Duration HELD_FOR = Duration.ofSeconds(3);

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withoutRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static KubernetesClient client;
  static Policies policies;
  static ReadinessFixture pods;

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
    pods = new ReadinessFixture(api);
  }
}
