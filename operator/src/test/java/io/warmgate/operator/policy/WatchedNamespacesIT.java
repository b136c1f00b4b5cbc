package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With WARMGATE_NAMESPACES set, policies elsewhere are left alone. */
class WatchedNamespacesIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void onlyListedNamespacesAreReconciled() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    Policies policies = new Policies(api.client());
    String watched = api.newNamespace("watched");
    String other = api.newNamespace("other");
    String address = redis.host() + ":" + redis.port();
    for (String ns : new String[] {watched, other}) {
      policies.deployment(ns, "app");
      policies.policy(ns, "deals", TargetKind.Deployment, "app", address, null);
    }
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_NAMESPACES", watched,
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", Policies.LOOPBACK,
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "1s"));

    try (WarmgateOperator operator = WarmgateOperator.start(settings, api.client())) {
      policies.awaitCondition(watched, "deals", Conditions.READY, "True", "Reconciled");
      await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
          assertThat(policies.get(other, "deals").getStatus()).isNull());
    }
  }
}
