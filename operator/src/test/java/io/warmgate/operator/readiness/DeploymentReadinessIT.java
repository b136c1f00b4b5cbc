package io.warmgate.operator.readiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.Policies;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Deployment readiness style on a real API server and a real Redis: the operator sets the
 * {@code warmgate.io/warm} condition of a policy's pods through {@code pods/status}. The test plays
 * the Deployment controller (ReplicaSets with revisions, pods with their {@code pod-template-hash}
 * and the readiness gate the webhook adds, see InjectionWebhookIT) and the agents.
 */
class DeploymentReadinessIT extends ReadinessStack {

  static final String NEW = "n3w9c8b7";
  static final String OLD = "01d5c6d7";

  @Test
  void schemaChangingReleaseHoldsTheNewPodUntilItsKeySpaceIsWarm() {
    Release release = release("schema", "aaa111", "bbb222");
    String ns = release.ns();
    Pod legacy = pod(ns, "legacy", NEW, false);

    assertThat(pods.awaitCondition(ns, release.oldPod(), "True").getReason())
        .isEqualTo(PodWarmth.STABLE_REVISION);
    assertThat(pods.awaitCondition(ns, release.newPod(), "False").getReason())
        .isEqualTo("Warming");
    assertThat(policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming")
        .getMessage()).contains("1 of 2 gated pods").contains("set spec.warmup.mode: Preload");
    assertThat(policies.get(ns, "deals").getMetadata().getFinalizers())
        .contains("warmgate.io/held-canary");
    await().during(HELD_FOR).atMost(HELD_FOR.plusSeconds(5)).untilAsserted(() ->
        assertThat(pods.condition(ns, release.newPod())).hasValueSatisfying(c ->
            assertThat(c.getStatus()).isEqualTo("False")));

    release.agents().writeValues("bbb222", release.hot());

    PodCondition warm = pods.awaitCondition(ns, release.newPod(), "True");
    assertThat(warm.getReason()).isEqualTo("CoverageReached");
    assertThat(warm.getMessage()).contains("new pods " + NEW);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "NoPodWaiting");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");
    assertThat(pods.condition(ns, legacy.getMetadata().getName()))
        .as("a pod without the readiness gate is not the operator's to hold").isEmpty();
    assertThat(policies.events(ns, "deals")).extracting(e -> e.getReason())
        .as("RolloutHeld transitions are Events, as for a Rollout").contains("Warming");

    // A replacement pod (a restart that recreates it) of the warm revision is let in at once.
    client.pods().inNamespace(ns).withName(release.newPod()).delete();
    Pod again = pod(ns, "new", NEW, true);
    assertThat(pods.awaitCondition(ns, again.getMetadata().getName(), "True").getReason())
        .isEqualTo("CoverageReached");
  }

  @Test
  void sameSchemaNewPodIsLetInAtOnce() {
    Release release = release("same", "aaa111", "aaa111");

    assertThat(pods.awaitCondition(release.ns(), release.newPod(), "True").getReason())
        .isEqualTo("SchemaUnchanged");
  }

  @Test
  void scaleOutPodIsLetInBeforeItsAgentRegisters() {
    String ns = pods.namespace("scaleout");
    Deployment target = deployment(ns, 2);
    replicaSet(ns, target, NEW, 2, "1");
    policies.policy(ns, "deals", TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    Pod pod = pod(ns, "app", NEW, true);

    assertThat(pods.awaitCondition(ns, pod.getMetadata().getName(), "True").getReason())
        .isEqualTo(PodWarmth.NO_RELEASE);
  }

  @Test
  void deletingThePolicyLetsWaitingPodsInAndSaysWhyOnTheDeployment() {
    Release release = release("deleted", "aaa111", "bbb222");
    String ns = release.ns();
    pods.awaitCondition(ns, release.newPod(), "False");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");

    client.resources(CachePolicy.class).inNamespace(ns).withName("deals").delete();

    PodCondition released = pods.awaitCondition(ns, release.newPod(), "True");
    assertThat(released.getReason()).isEqualTo(WarmPods.POLICY_DELETED);
    assertThat(released.getMessage()).contains("CachePolicy " + ns + "/deals was deleted");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(
        client.v1().events().inNamespace(ns).list().getItems())
        .filteredOn(e -> "Deployment".equals(e.getInvolvedObject().getKind())
            && WarmPods.POLICY_DELETED.equals(e.getReason()))
        .singleElement().satisfies(e -> assertThat(e.getMessage()).contains("(1 pods)")));
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policies.get(ns, "deals")).isNull());
  }

  @Test
  void podsStayUnreadyWhileTheOperatorIsDownAndAreLetInWhenItIsBack() {
    Release release = release("down", "aaa111", "aaa111");
    String ns = release.ns();
    pods.awaitCondition(ns, release.newPod(), "True");
    operator.stop();
    boolean started = false;
    try {
      Pod waiting = pod(ns, "new", NEW, true);
      await().during(HELD_FOR).atMost(HELD_FOR.plusSeconds(5)).untilAsserted(() ->
          assertThat(pods.condition(ns, waiting.getMetadata().getName())).isEmpty());

      operator.start();
      started = true;

      assertThat(pods.awaitCondition(ns, waiting.getMetadata().getName(), "True").getReason())
          .isEqualTo("SchemaUnchanged");
    } finally {
      if (!started) {
        operator.start();
      }
    }
  }

  /** A release of Deployment app from schema {@code from} to {@code to}, one pod each side. */
  record Release(String ns, String oldPod, String newPod, FakeAgents agents, List<String> hot) {}

  static Release release(String prefix, String from, String to) {
    String ns = pods.namespace(prefix);
    Deployment target = deployment(ns, 3);
    replicaSet(ns, target, OLD, 2, "1");
    replicaSet(ns, target, NEW, 1, "2");
    ReadinessFixture.Agents agents = ReadinessFixture.agents(redis, ns, "old-1", OLD, from,
        "new-1", NEW, to);
    Pod old = pod(ns, "old", OLD, true);
    Pod fresh = pod(ns, "new", NEW, true);
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    return new Release(ns, old.getMetadata().getName(), fresh.getMetadata().getName(),
        agents.agents(), agents.hot());
  }

  static Deployment deployment(String ns, int replicas) {
    return client.resource(new DeploymentBuilder().withNewMetadata().withName("app")
        .withNamespace(ns).endMetadata().withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", "app").endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", "app")
        .addToLabels(PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:2")
        .endContainer().endSpec().endTemplate().endSpec().build()).create();
  }

  static void replicaSet(String ns, HasMetadata owner, String hash, int replicas,
      String revision) {
    client.resource(new ReplicaSetBuilder().withNewMetadata().withName("app-" + hash)
        .withNamespace(ns).addToLabels("app", "app").addToLabels("pod-template-hash", hash)
        .addToAnnotations("deployment.kubernetes.io/revision", revision)
        .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("apps/v1")
            .withKind("Deployment").withName("app").withUid(owner.getMetadata().getUid())
            .withController(true).build())
        .endMetadata().withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", "app")
        .addToMatchLabels("pod-template-hash", hash)
        .endSelector().withNewTemplate().withNewMetadata().addToLabels("app", "app")
        .addToLabels("pod-template-hash", hash).endMetadata().withNewSpec().addNewContainer()
        .withName("app").withImage("registry.invalid/app:2").endContainer().endSpec()
        .endTemplate().endSpec().build()).create();
  }

  /** A pod of revision {@code hash}, with the webhook's readiness gate when {@code gated}. */
  static Pod pod(String ns, String prefix, String hash, boolean gated) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withGenerateName(prefix + "-")
        .withNamespace(ns).addToLabels("app", "app").addToLabels("pod-template-hash", hash)
        .addToLabels(PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:2")
        .endContainer().endSpec();
    if (gated) {
      pod.editSpec().addNewReadinessGate().withConditionType(PodInjector.READINESS_GATE)
          .endReadinessGate().endSpec();
    }
    return client.pods().inNamespace(ns).resource(pod.build()).create();
  }

}
