package io.warmgate.operator.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.gate.FakeArgo;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input the reconciler meets at run time, with the operator running against a real API server
 * and Redis: a target deleted while its canary is held, and garbage in the Valkey keys the gate
 * reads. Each time the policy reports it, and another policy of the namespace keeps reconciling.
 * (A missing Secret, a Secret without the key and a missing target are in CachePolicyReconcilerIT.)
 */
class BadInputReconcileIT {

  static final String STABLE = FakeArgo.STABLE;
  static final String CANARY = FakeArgo.CANARY;

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static Policies policies;
  static KubernetesClient client;

  String ns;
  FakeAgents agents;
  List<String> hot;

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
  }

  /** A canary of a new schema held at its gate, half warm, and a healthy Deployment policy. */
  @BeforeEach
  void heldCanaryAndABystander() {
    redis.flushAll();
    ns = api.newNamespace("bad-input");
    agents = new FakeAgents(redis.uri(), "deals");
    policies.rollout(ns, "app");
    new FakeArgo(client, ns, "app").holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    hot = agents.hotSet(100);
    agents.writeValues("bbb222", hot.subList(0, 50));
    policies.policy(ns, "deals", "deals", TargetKind.Rollout, "app", valkey(), null);
    policies.deployment(ns, "web");
    policies.policy(ns, "web", TargetKind.Deployment, "web", valkey(), null);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    policies.awaitCondition(ns, "web", Conditions.READY, "True", "Reconciled");
  }

  @AfterEach
  void deletePolicies() {
    // Every test's cache is "deals" in the same Redis: no earlier policy may read the next test's keys.
    client.resources(CachePolicy.class).inNamespace(ns).delete();
  }

  String valkey() {
    return redis.host() + ":" + redis.port();
  }

  @Test
  void targetDeletedWhileItsGateIsWarmingIsTargetNotFoundAndTheBystanderKeepsReconciling() {
    client.genericKubernetesResources("argoproj.io/v1alpha1", "Rollout").inNamespace(ns)
        .withName("app").delete();

    Condition ready =
        policies.awaitCondition(ns, "deals", Conditions.READY, "False", "TargetNotFound");
    assertThat(ready.getMessage()).isEqualTo("Rollout " + ns + "/app named by spec.targetRef "
        + "does not exist; create it or fix spec.targetRef.name");
    // Regression: RolloutHeld stayed True (Warming) for a Rollout that no longer existed.
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "TargetNotFound");
    assertThat(policies.get(ns, "deals").getStatus().getGate().getPhase())
        .isEqualTo(GatePhase.Idle);
    assertBystanderFollowsASpecEdit();
    assertThat(policies.events(ns, "deals")).noneMatch(e -> "ReconcileFailed".equals(e.getReason()));
  }

  @Test
  void registryOfTheWrongTypeHoldsTheCanaryNamingTheKey() {
    String registry = agents.keys().agents();
    agents.raw(r -> {
      r.del(registry);
      r.set(registry, "garbage");
    });

    Condition held =
        policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "L2Unreachable");
    assertThat(held.getMessage()).startsWith("held: Valkey cannot be read (key " + registry
        + " holds a value of another type than docs/valkey-layout.md gives it (WRONGTYPE");
    assertThat(rolloutStatus()).containsKey("pauseConditions");
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    assertBystanderFollowsASpecEdit();
  }

  @Test
  void regressionStatsKeysOfTheWrongTypeNoLongerStopTheGateFromReleasingAWarmCanary() {
    // A PFCOUNT or HGETALL WRONGTYPE used to make the whole pass "Valkey cannot be read".
    agents.raw(r -> {
      r.set(agents.keys().keysWritten("bbb222"), "not a hyperloglog");
      long bucket = Instant.now().getEpochSecond() / 10 * 10;
      r.set(agents.keys().statsBucket("bbb222", bucket), "not a hash");
    });
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).untilAsserted(() ->
        assertThat(policies.condition(ns, "deals", Conditions.ROLLOUT_HELD))
            .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("Warming")));

    // Value keys only: FakeAgents.writeValues would also PFADD into the planted string.
    agents.raw(r -> hot.subList(50, 90).forEach(id -> r.psetex("wg:deals:bbb222:" + id, 240_000,
        "envelope")));

    await().atMost(Policies.WITHIN).until(() -> !rolloutStatus().containsKey("pauseConditions"));
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      CachePolicy deals = policies.get(ns, "deals");
      assertThat(deals.getStatus().getGate().getPhase()).isEqualTo(GatePhase.Promoted);
      assertThat(deals.getStatus().getKeySpaces()).filteredOn(n -> "bbb222".equals(n.getSchemaHash()))
          .extracting(KeySpaceStatus::getKeys).containsExactly(0L);
    });
  }

  /** The other policy of the namespace still follows its spec: nothing else broke. */
  void assertBystanderFollowsASpecEdit() {
    client.resources(CachePolicy.class).inNamespace(ns).withName("web").edit(web -> {
      web.getSpec().setL1Ttl("30s");
      return web;
    });
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      CachePolicy now = policies.get(ns, "web");
      assertThat(now.getStatus().getObservedGeneration()).isEqualTo(2L);
      assertThat(Conditions.isTrue(now.getStatus(), Conditions.READY)).isTrue();
    });
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> rolloutStatus() {
    GenericKubernetesResource rollout = client.genericKubernetesResources("argoproj.io/v1alpha1",
        "Rollout").inNamespace(ns).withName("app").get();
    Object status = rollout.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }
}
