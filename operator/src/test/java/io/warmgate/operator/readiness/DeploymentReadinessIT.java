package io.warmgate.operator.readiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Deployment readiness style on a real API server and a real Redis: the operator sets the
 * {@code warmgate.io/warm} condition of a policy's pods through {@code pods/status}. The test plays
 * the Deployment controller (ReplicaSets with revisions, pods with their {@code pod-template-hash}
 * and the readiness gate the webhook adds, see InjectionWebhookIT) and the agents.
 */
class DeploymentReadinessIT {

  static final String NEW = "n3w9c8b7";
  static final String OLD = "01d5c6d7";
  static final Duration HELD_FOR = Duration.ofSeconds(3);

  @RegisterExtension
  @org.junit.jupiter.api.Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @org.junit.jupiter.api.Order(2)
  static final RunningOperator operator = RunningOperator.withoutRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static KubernetesClient client;
  static Policies policies;

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
  }

  @Test
  void schemaChangingReleaseHoldsTheNewPodUntilItsKeySpaceIsWarm() {
    Release release = release("schema", "aaa111", "bbb222");
    String ns = release.ns();
    Pod legacy = pod(ns, "legacy", NEW, false);

    assertThat(awaitCondition(ns, release.oldPod(), "True").getReason())
        .isEqualTo(PodWarmth.STABLE_REVISION);
    assertThat(awaitCondition(ns, release.newPod(), "False").getReason()).isEqualTo("Warming");
    assertThat(policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming")
        .getMessage()).contains("1 of 2 gated pods").contains("set spec.warmup.mode: Preload");
    assertThat(policies.get(ns, "deals").getMetadata().getFinalizers())
        .contains("warmgate.io/held-canary");
    await().during(HELD_FOR).atMost(HELD_FOR.plusSeconds(5)).untilAsserted(() ->
        assertThat(condition(ns, release.newPod())).hasValueSatisfying(c ->
            assertThat(c.getStatus()).isEqualTo("False")));

    release.agents().writeValues("bbb222", release.hot());

    PodCondition warm = awaitCondition(ns, release.newPod(), "True");
    assertThat(warm.getReason()).isEqualTo("CoverageReached");
    assertThat(warm.getMessage()).contains("new pods " + NEW);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "NoPodWaiting");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");
    assertThat(condition(ns, legacy.getMetadata().getName()))
        .as("a pod without the readiness gate is not the operator's to hold").isEmpty();
    assertThat(policies.events(ns, "deals")).extracting(e -> e.getReason())
        .as("RolloutHeld transitions are Events, as for a Rollout").contains("Warming");

    // A replacement pod (a restart that recreates it) of the warm revision is let in at once.
    client.pods().inNamespace(ns).withName(release.newPod()).delete();
    Pod again = pod(ns, "new", NEW, true);
    assertThat(awaitCondition(ns, again.getMetadata().getName(), "True").getReason())
        .isEqualTo("CoverageReached");
  }

  @Test
  void sameSchemaNewPodIsLetInAtOnce() {
    Release release = release("same", "aaa111", "aaa111");

    assertThat(awaitCondition(release.ns(), release.newPod(), "True").getReason())
        .isEqualTo("SchemaUnchanged");
  }

  @Test
  void scaleOutPodIsLetInBeforeItsAgentRegisters() {
    String ns = namespace("scaleout");
    Deployment target = deployment(ns, 2);
    replicaSet(ns, target, NEW, 2, "1");
    policies.policy(ns, "deals", TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    Pod pod = pod(ns, "app", NEW, true);

    assertThat(awaitCondition(ns, pod.getMetadata().getName(), "True").getReason())
        .isEqualTo(PodWarmth.NO_RELEASE);
  }

  @Test
  void deletingThePolicyLetsWaitingPodsInAndSaysWhyOnTheDeployment() {
    Release release = release("deleted", "aaa111", "bbb222");
    String ns = release.ns();
    awaitCondition(ns, release.newPod(), "False");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");

    client.resources(CachePolicy.class).inNamespace(ns).withName("deals").delete();

    PodCondition released = awaitCondition(ns, release.newPod(), "True");
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
    awaitCondition(ns, release.newPod(), "True");
    operator.stop();
    boolean started = false;
    try {
      Pod waiting = pod(ns, "new", NEW, true);
      await().during(HELD_FOR).atMost(HELD_FOR.plusSeconds(5)).untilAsserted(() ->
          assertThat(condition(ns, waiting.getMetadata().getName())).isEmpty());

      operator.start();
      started = true;

      assertThat(awaitCondition(ns, waiting.getMetadata().getName(), "True").getReason())
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
    String ns = namespace(prefix);
    Deployment target = deployment(ns, 3);
    replicaSet(ns, target, OLD, 2, "1");
    replicaSet(ns, target, NEW, 1, "2");
    FakeAgents agents = new FakeAgents(redis.uri(), "deals-" + ns, ns);
    agents.register("old-1", OLD, from);
    agents.register("new-1", NEW, to);
    double[] rates = new double[100];
    Arrays.fill(rates, 2.0);
    List<String> hot = agents.hotSetAt(rates);
    agents.traffic(from, 200, 0.9, 20);
    if (!to.equals(from)) {
      agents.traffic(to, 50, 0.0, 5);
    }
    Pod old = pod(ns, "old", OLD, true);
    Pod fresh = pod(ns, "new", NEW, true);
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    return new Release(ns, old.getMetadata().getName(), fresh.getMetadata().getName(), agents,
        hot);
  }

  static String namespace(String prefix) {
    String ns = api.newNamespace(prefix);
    // No controller-manager here creates the namespace's default service account pods need.
    client.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("default").endMetadata().build()).create();
    return ns;
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
        .withNewSelector().addToMatchLabels("app", "app").addToMatchLabels("pod-template-hash", hash)
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

  static Optional<PodCondition> condition(String ns, String pod) {
    Pod read = client.pods().inNamespace(ns).withName(pod).get();
    return read == null || read.getStatus() == null || read.getStatus().getConditions() == null
        ? Optional.empty() : read.getStatus().getConditions().stream()
            .filter(c -> PodInjector.READINESS_GATE.equals(c.getType())).findFirst();
  }

  static PodCondition awaitCondition(String ns, String pod, String status) {
    await().atMost(Policies.WITHIN).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(condition(ns, pod)).as("%s of pod %s", PodInjector.READINESS_GATE, pod)
            .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(status)));
    return condition(ns, pod).orElseThrow();
  }
}
