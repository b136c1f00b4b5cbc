package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Valkey outages and operator restarts, each test with its own operator and policy. */
class ValkeyOutageIT {

  /** Recheck interval (1s) + probe timeout (1s) + slack. */
  static final Duration DETECTED_WITHIN = Duration.ofSeconds(10);

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static Policies policies;
  WarmgateOperator operator;
  String ns;

  @BeforeAll
  static void installCrd() {
    api.applyCrd(ApiServer.cachePolicyCrd());
    policies = new Policies(api.client());
  }

  @BeforeEach
  void readyPolicy() {
    ns = api.newNamespace("outage");
    operator = Policies.startOperator(api.client());
    policies.deployment(ns, "app");
    policies.policy(ns, "deals", TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  @AfterEach
  void stopOperator() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void redisStoppedIsConnectionRefusedWithinBoundAndRecoversAfterRestart() {
    Condition up = policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True",
        "Connected");

    redis.stop();
    Instant stopped = Instant.now();

    await().atMost(DETECTED_WITHIN).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
        assertThat(policies.condition(ns, "deals", Conditions.L2_REACHABLE))
            .hasValueSatisfying(c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("ConnectionRefused");
            }));
    assertThat(Duration.between(stopped, Instant.now())).isLessThan(DETECTED_WITHIN);
    policies.awaitCondition(ns, "deals", Conditions.READY, "False", "ConnectionRefused");
    Condition down = policies.condition(ns, "deals", Conditions.L2_REACHABLE).orElseThrow();
    assertThat(Instant.parse(down.getLastTransitionTime()))
        .isAfterOrEqualTo(Instant.parse(up.getLastTransitionTime()));

    redis.start();

    await().atMost(DETECTED_WITHIN).untilAsserted(() ->
        assertThat(policies.condition(ns, "deals", Conditions.L2_REACHABLE))
            .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True")));
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policies.events(ns, "deals")).extracting(Event::getReason)
            .containsSubsequence("Connected", "ConnectionRefused", "Connected"));
  }

  @Test
  void operatorRestartDoesNotFlapConditions() {
    CachePolicy before = policies.get(ns, "deals");
    List<Condition> conditionsBefore = before.getStatus().getConditions();
    int eventsBefore = policies.events(ns, "deals").size();

    operator.close();
    operator = Policies.startOperator(api.client());

    // Several recheck intervals of the new operator: nothing may change, not even a status write.
    await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
      CachePolicy now = policies.get(ns, "deals");
      assertThat(now.getStatus().getConditions()).isEqualTo(conditionsBefore);
      assertThat(now.getMetadata().getResourceVersion())
          .isEqualTo(before.getMetadata().getResourceVersion());
    });
    assertThat(policies.events(ns, "deals")).hasSize(eventsBefore);
  }
}
