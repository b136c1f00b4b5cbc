package io.warmgate.operator.readiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.revision.NewPods;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.Policies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The readiness gate for a StatefulSet target on a real API server and a real Redis. The test
 * plays the StatefulSet controller (a StatefulSet whose {@code status.currentRevision} and
 * {@code status.updateRevision} name two ControllerRevisions, pods labelled with their
 * {@code controller-revision-hash} and the readiness gate the webhook adds) and the agents. A
 * StatefulSet rolling update replaces its pods one at a time from the highest ordinal and waits
 * for each to be Ready, so the first new pod held here holds the whole rollout.
 */
class StatefulSetReadinessIT extends ReadinessStack {

  static final String NEW = "app-7b9c8d6f5";
  static final String OLD = "app-5d8f7c9b6";

  @Test
  void schemaChangingUpdateHoldsTheNewRevisionsPodUntilItsKeySpaceIsWarm() {
    Release release = release("sts-schema", "aaa111", "bbb222");
    String ns = release.ns();

    assertThat(pods.awaitCondition(ns, "app-0", "True").getReason())
        .isEqualTo(PodWarmth.STABLE_REVISION);
    PodCondition held = pods.awaitCondition(ns, "app-2", "False");
    assertThat(held.getReason()).isEqualTo("Warming");
    assertThat(held.getMessage()).contains("new pods " + NEW);
    assertThat(policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming")
        .getMessage()).contains("1 of 2 gated pods of StatefulSet " + ns + "/app");
    assertThat(policies.get(ns, "deals").getMetadata().getFinalizers())
        .contains("warmgate.io/held-canary");
    assertThat(policies.get(ns, "deals").getStatus().getGate().getStartedAt())
        .as("warmup.maxWait counts from the update revision's ControllerRevision")
        .isEqualTo(client.apps().controllerRevisions().inNamespace(ns).withName(NEW).get()
            .getMetadata().getCreationTimestamp());
    await().during(HELD_FOR).atMost(HELD_FOR.plusSeconds(5)).untilAsserted(() ->
        assertThat(pods.condition(ns, "app-2")).hasValueSatisfying(c ->
            assertThat(c.getStatus()).isEqualTo("False")));

    release.agents().writeValues("bbb222", release.hot());

    assertThat(pods.awaitCondition(ns, "app-2", "True").getReason()).isEqualTo("CoverageReached");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "NoPodWaiting");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");
  }

  @Test
  void sameSchemaNewRevisionsPodIsLetInAtOnce() {
    Release release = release("sts-same", "aaa111", "aaa111");

    assertThat(pods.awaitCondition(release.ns(), "app-2", "True").getReason())
        .isEqualTo("SchemaUnchanged");
  }

  @Test
  void deletingThePolicyLetsWaitingPodsInAndSaysWhyOnTheStatefulSet() {
    Release release = release("sts-deleted", "aaa111", "bbb222");
    String ns = release.ns();
    pods.awaitCondition(ns, "app-2", "False");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");

    client.resources(CachePolicy.class).inNamespace(ns).withName("deals").delete();

    PodCondition released = pods.awaitCondition(ns, "app-2", "True");
    assertThat(released.getReason()).isEqualTo(WarmPods.POLICY_DELETED);
    assertThat(released.getMessage()).contains("CachePolicy " + ns + "/deals was deleted");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(
        client.v1().events().inNamespace(ns).list().getItems())
        .filteredOn(e -> "StatefulSet".equals(e.getInvolvedObject().getKind())
            && WarmPods.POLICY_DELETED.equals(e.getReason()))
        .singleElement().satisfies(e -> {
          assertThat(e.getInvolvedObject().getName()).isEqualTo("app");
          assertThat(e.getMessage()).contains("(1 pods)");
        }));
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policies.get(ns, "deals")).isNull());
  }

  /**
   * A rolling update of StatefulSet app (3 replicas) from schema {@code from} to {@code to}:
   * app-0 of the current revision, app-2 of the update revision.
   */
  record Release(String ns, FakeAgents agents, List<String> hot) {}

  static Release release(String prefix, String from, String to) {
    String ns = pods.namespace(prefix);
    StatefulSet target = client.resource(new StatefulSetBuilder().withNewMetadata()
        .withName("app").withNamespace(ns).endMetadata().withNewSpec().withReplicas(3)
        .withServiceName("app").withNewSelector().addToMatchLabels("app", "app").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "app")
        .addToLabels(PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:2")
        .endContainer().endSpec().endTemplate().endSpec().build()).create();
    revision(ns, target, OLD, 1);
    revision(ns, target, NEW, 2);
    target.setStatus(new StatefulSetBuilder(target).editOrNewStatus().withReplicas(3)
        .withCurrentRevision(OLD).withUpdateRevision(NEW).withUpdatedReplicas(1).endStatus()
        .build().getStatus());
    client.apps().statefulSets().inNamespace(ns).resource(target).updateStatus();

    ReadinessFixture.Agents agents = ReadinessFixture.agents(redis, ns, "app-0", OLD, from,
        "app-2", NEW, to);
    pod(ns, "app-0", OLD);
    pod(ns, "app-2", NEW);
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.StatefulSet, "app",
        redis.host() + ":" + redis.port(), null);
    return new Release(ns, agents.agents(), agents.hot());
  }

  static void revision(String ns, StatefulSet owner, String name, long number) {
    client.resource(new ControllerRevisionBuilder().withNewMetadata().withName(name)
        .withNamespace(ns).addToLabels("app", "app")
        .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
            .withKind("StatefulSet").withName("app").withUid(owner.getMetadata().getUid())
            .withController(true).build())
        .endMetadata().withRevision(number)
        .withData(Map.of("spec", Map.of("template", Map.of("metadata", Map.of())))).build())
        .create();
  }

  /** Pod {@code name} of revision {@code revision}, with the webhook's readiness gate. */
  static Pod pod(String ns, String name, String revision) {
    return client.pods().inNamespace(ns).resource(new PodBuilder().withNewMetadata()
        .withName(name).withNamespace(ns).addToLabels("app", "app")
        .addToLabels(NewPods.STATEFULSET_LABEL, revision)
        .addToLabels(PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:2")
        .endContainer().addNewReadinessGate().withConditionType(PodInjector.READINESS_GATE)
        .endReadinessGate().endSpec().build()).create();
  }

}
