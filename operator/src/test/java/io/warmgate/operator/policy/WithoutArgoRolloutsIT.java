package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a cluster without Argo Rollouts the operator runs, and Rollout targets say what is missing.
 */
class WithoutArgoRolloutsIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void rolloutTargetIsTargetNotFoundWhileDeploymentTargetsWork() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    Policies policies = new Policies(api.client());
    String ns = api.newNamespace("no-argo");
    String address = redis.host() + ":" + redis.port();
    policies.deployment(ns, "app");
    policies.policy(ns, "rollout", TargetKind.Rollout, "deal-service", address, null);
    policies.policy(ns, "deployment", TargetKind.Deployment, "app", address, null);

    try (WarmgateOperator operator = Policies.startOperator(api.client())) {
      Condition ready =
          policies.awaitCondition(ns, "rollout", Conditions.READY, "False", "TargetNotFound");
      assertThat(ready.getMessage()).contains("Argo Rollouts is not installed");
      policies.awaitCondition(ns, "deployment", Conditions.READY, "True", "Reconciled");
    }
  }
}
