package io.warmgate.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator, acting as its service account with only the permissions of k8s/rbac.yaml, elects
 * itself leader, reconciles a policy to Ready, records events and serves its endpoints.
 */
class RbacIT {

  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String SERVICE_ACCOUNT = "warmgate-operator";

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void operatorWorksWithExactlyTheManifestPermissions() throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    api.applyCrd(ApiServer.rolloutCrd());
    admin.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
        .withNewMetadata().withName(OPERATOR_NAMESPACE).endMetadata().build()).create();
    try (InputStream rbac = Files.newInputStream(Path.of("k8s/rbac.yaml"))) {
      List<HasMetadata> objects = admin.load(rbac).items();
      assertThat(objects).extracting(HasMetadata::getKind).contains("ClusterRole", "Role");
      objects.forEach(o -> admin.resource(o).create());
    }
    String ns = api.newNamespace("rbac");
    Policies policies = new Policies(admin);
    io.fabric8.kubernetes.api.model.apps.Deployment app = policies.deployment(ns, "app");
    policies.policy(ns, "deals", TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);

    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEASE_NAMESPACE", OPERATOR_NAMESPACE,
        "POD_NAME", "warmgate-operator-0",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", Policies.LOOPBACK,
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "1s"));
    try (KubernetesClient asOperator = api.clientAs(OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
        WarmgateOperator operator = WarmgateOperator.start(settings, asOperator)) {

      policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
      await().atMost(Policies.WITHIN).untilAsserted(() ->
          assertThat(policies.events(ns, "deals")).isNotEmpty());
      Lease lease = admin.leases().inNamespace(OPERATOR_NAMESPACE)
          .withName("warmgate-operator").get();
      assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("warmgate-operator-0");

      await().atMost(Duration.ofSeconds(30)).until(operator::isReady);
      assertThat(get(operator, "/healthz")).isEqualTo(200);
      assertThat(get(operator, "/readyz")).isEqualTo(200);
      String metrics = body(operator, "/metrics");
      assertThat(metrics).contains("jvm_memory_used_bytes").contains("warmgate_valkey_clients")
          .contains("operator_sdk_");
      assertThat(metrics.lines().filter(l -> l.startsWith("operator_sdk_")))
          .as("JOSDK's series are per controller, none names the policy")
          .noneMatch(l -> l.contains("\"deals\"") || l.contains("\"" + ns + "\""));

      readinessGateIsSet(admin, ns, app);
      statefulSetReadinessGateIsSet(admin, policies, ns);
      gateReleasesAHeldRollout(admin, policies, ns);

      admin.resources(CachePolicy.class).inNamespace(ns).withName("deals").delete();
      await().atMost(Policies.WITHIN)
          .until(() -> policies.get(ns, "deals") == null);
    }
  }

  /** The Deployment readiness style lists the policy's pods and patches pods/status. */
  static void readinessGateIsSet(KubernetesClient admin, String ns, HasMetadata app) {
    admin.serviceAccounts().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model
        .ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build())
        .create();
    admin.resource(new io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder().withNewMetadata()
        .withName("app-h1").withNamespace(ns).addToLabels("app", "app")
        .addToLabels("pod-template-hash", "h1")
        .addToAnnotations("deployment.kubernetes.io/revision", "1")
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("Deployment").withName("app")
        .withUid(app.getMetadata().getUid()).withController(true).endOwnerReference()
        .endMetadata().withNewSpec().withReplicas(1).withNewSelector()
        .addToMatchLabels("app", "app").endSelector().withNewTemplate().withNewMetadata()
        .addToLabels("app", "app").endMetadata().withNewSpec().addNewContainer().withName("app")
        .withImage("registry.invalid/app:1").endContainer().endSpec().endTemplate().endSpec()
        .build()).create();
    String pod = admin.pods().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model
        .PodBuilder().withNewMetadata().withName("app-h1-a").addToLabels("app", "app")
        .addToLabels("pod-template-hash", "h1")
        .addToLabels(io.warmgate.operator.inject.PodInjector.POLICY_LABEL, "deals").endMetadata()
        .withNewSpec().addNewReadinessGate()
        .withConditionType(io.warmgate.operator.inject.PodInjector.READINESS_GATE)
        .endReadinessGate().addNewContainer().withName("app").withImage("registry.invalid/app:1")
        .endContainer().endSpec().build()).create().getMetadata().getName();
    // As the Deployment controller does when its ReplicaSet creates a pod: the change the
    // operator reconciles on (it watches no pods).
    admin.apps().deployments().inNamespace(ns).withName("app").subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"replicas\":1}}");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(admin.pods().inNamespace(ns)
        .withName(pod).get().getStatus().getConditions())
        .anyMatch(c -> io.warmgate.operator.inject.PodInjector.READINESS_GATE.equals(c.getType())
            && "True".equals(c.getStatus())));
  }

  /**
   * The StatefulSet readiness style reads the StatefulSet and its update revision's
   * ControllerRevision by name, then lists the policy's pods and patches pods/status.
   */
  static void statefulSetReadinessGateIsSet(KubernetesClient admin, Policies policies,
      String ns) {
    var store = admin.resource(new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder()
        .withNewMetadata().withName("store").withNamespace(ns).endMetadata().withNewSpec()
        .withReplicas(1).withServiceName("store").withNewSelector()
        .addToMatchLabels("app", "store").endSelector().withNewTemplate().withNewMetadata()
        .addToLabels("app", "store").endMetadata().withNewSpec().addNewContainer()
        .withName("app").withImage("registry.invalid/app:1").endContainer().endSpec()
        .endTemplate().endSpec().build()).create();
    admin.resource(new io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder()
        .withNewMetadata().withName("store-r1").withNamespace(ns).addNewOwnerReference()
        .withApiVersion("apps/v1").withKind("StatefulSet").withName("store")
        .withUid(store.getMetadata().getUid()).withController(true).endOwnerReference()
        .endMetadata().withRevision(1L).withData(Map.of("spec", Map.of())).build()).create();
    policies.policy(ns, "store", TargetKind.StatefulSet, "store",
        redis.host() + ":" + redis.port(), null);
    String pod = admin.pods().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model
        .PodBuilder().withNewMetadata().withName("store-0").addToLabels("app", "store")
        .addToLabels("controller-revision-hash", "store-r1")
        .addToLabels(io.warmgate.operator.inject.PodInjector.POLICY_LABEL, "store").endMetadata()
        .withNewSpec().addNewReadinessGate()
        .withConditionType(io.warmgate.operator.inject.PodInjector.READINESS_GATE)
        .endReadinessGate().addNewContainer().withName("app").withImage("registry.invalid/app:1")
        .endContainer().endSpec().build()).create().getMetadata().getName();
    // As the StatefulSet controller does once its first revision's pod exists.
    admin.apps().statefulSets().inNamespace(ns).withName("store").subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"replicas\":1,"
            + "\"currentRevision\":\"store-r1\",\"updateRevision\":\"store-r1\"}}");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(admin.pods().inNamespace(ns)
        .withName(pod).get().getStatus().getConditions())
        .anyMatch(c -> io.warmgate.operator.inject.PodInjector.READINESS_GATE.equals(c.getType())
            && "True".equals(c.getStatus())));
    admin.resources(CachePolicy.class).inNamespace(ns).withName("store").delete();
  }

  /** The gate re-reads, releases and records Events on a Rollout as the service account. */
  static void gateReleasesAHeldRollout(KubernetesClient admin, Policies policies, String ns) {
    policies.rollout(ns, "app");
    admin.genericKubernetesResources("argoproj.io/v1alpha1", "Rollout").inNamespace(ns)
        .withName("app").subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("status", Map.of("currentPodHash", "canary1",
                "stableRS", "stable1", "currentStepIndex", 1, "controllerPause", true,
                "pauseConditions", List.of(Map.of("reason", "CanaryPauseStep",
                    "startTime", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()))))));
    FakeAgents agents = new FakeAgents(redis.uri(), "gate");
    agents.register("app-stable", "stable1", "aaa111");
    agents.register("app-canary", "canary1", "aaa111");

    policies.policy(ns, "gate", "gate", TargetKind.Rollout, "app", redis.host() + ":" + redis.port(),
        null);

    policies.awaitCondition(ns, "gate", Conditions.ROLLOUT_HELD, "False", "SchemaUnchanged");
    assertThat(admin.genericKubernetesResources("argoproj.io/v1alpha1", "Rollout").inNamespace(ns)
        .withName("app").get().getAdditionalProperties().get("status"))
        .asInstanceOf(InstanceOfAssertFactories.MAP).doesNotContainKey("pauseConditions");
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(admin.v1().events().inNamespace(ns).list().getItems())
            .anyMatch(e -> "Rollout".equals(e.getInvolvedObject().getKind())
                && "SchemaUnchanged".equals(e.getReason())));
    assertThat(policies.condition(ns, "gate", Conditions.READY)).hasValueSatisfying(c ->
        assertThat(c.getReason()).isEqualTo("Reconciled"));
  }

  static int get(WarmgateOperator operator, String path) throws IOException, InterruptedException {
    return send(operator, path).statusCode();
  }

  static String body(WarmgateOperator operator, String path)
      throws IOException, InterruptedException {
    return send(operator, path).body();
  }

  private static HttpResponse<String> send(WarmgateOperator operator, String path)
      throws IOException, InterruptedException {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + operator.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
