package io.warmgate.operator.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.gate.NewPodsGate;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.ArgoRollouts;
import io.warmgate.testing.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The decision endpoints driven over real HTTP against a running operator, a real API server and
 * a real Redis; the test plays the controllers (a Rollout's status, a Deployment's ReplicaSets,
 * Flagger's {@code -primary} Deployment) and the agents (registry, hot set, value keys).
 */
class GateEndpointsIT {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String NEW = "n3w9c8b7";
  static final String OLD = "01d5c6d7";

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

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
  }

  /** Stable agents on schema aaa111, new ones on bbb222, a hot set of 100 ids read 2/s each. */
  static List<String> fleet(FakeAgents agents) {
    agents.register("stable-1", OLD, "aaa111");
    agents.register("stable-2", OLD, "aaa111");
    agents.register("new-1", NEW, "bbb222");
    double[] rates = new double[100];
    Arrays.fill(rates, 2.0);
    List<String> hot = agents.hotSetAt(rates);
    agents.traffic("aaa111", 200, 0.9, 20);
    agents.traffic("bbb222", 50, 0.0, 5);
    return hot;
  }

  @Test
  void blueGreenPrePromotionAnalysisIsAnsweredFromTheNewPodsAndTheRolloutIsLeftAlone()
      throws Exception {
    String ns = api.newNamespace("bluegreen");
    GenericKubernetesResource rollout = client.resource(new GenericKubernetesResourceBuilder()
        .withApiVersion(ArgoRollouts.API_VERSION).withKind("Rollout")
        .withNewMetadata().withName("app").withNamespace(ns).endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "selector", Map.of("matchLabels", Map.of("app", "app")),
            "template", Map.of("metadata", Map.of("labels", Map.of("app", "app")),
                "spec", Map.of("containers", List.of(
                    Map.of("name", "app", "image", "registry.invalid/app:2")))),
            "strategy", Map.of("blueGreen", Map.of("activeService", "app-active",
                "previewService", "app-preview", "autoPromotionEnabled", true,
                "prePromotionAnalysis", Map.of("templates",
                    List.of(Map.of("templateName", "warmgate-warm")))))))
        .build()).create();
    client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(ns).withName("app")
        .subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("status", Map.of("currentPodHash", NEW,
                "stableRS", OLD))));
    replicaSet(ns, "app-" + NEW, rollout, "rollouts-pod-template-hash", NEW, 1);
    FakeAgents agents = new FakeAgents(redis.uri(), "deals-" + ns, ns);
    List<String> hot = fleet(agents);
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.Rollout, "app",
        redis.host() + ":" + redis.port(), null);

    // Analysis style: Ready, not NoGateStep; the operator holds nothing itself.
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False",
        NewPodsGate.EXTERNAL_GATE);

    JsonNode cold = awaitGate(ns, j -> "Warming".equals(j.get("reason").asText()));
    assertThat(cold.get("warm").asBoolean()).isFalse();
    assertThat(cold.get("podHash").asText()).isEqualTo(NEW);
    assertThat(cold.get("schemaHash").asText()).isEqualTo("bbb222");
    assertThat(cold.get("stableSchemaHash").asText()).isEqualTo("aaa111");
    assertThat(cold.get("coverage").asDouble()).isEqualTo(0.0);
    assertThat(cold.get("forecast").get("peak").asDouble()).isPositive();
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "False", "Warming");
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(policies.get(ns, "deals")
        .getStatus().getKeySpaces()).extracting(k -> k.getSchemaHash() + " " + k.getRole())
        .containsExactly("aaa111 Stable", "bbb222 Canary"));

    agents.writeValues("bbb222", hot.subList(0, 85));
    JsonNode warm = awaitGate(ns, j -> j.get("warm").asBoolean());
    assertThat(warm.get("reason").asText()).isEqualTo("CoverageReached");
    assertThat(warm.get("coverage").asDouble()).isEqualTo(85.0);
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");

    @SuppressWarnings("unchecked")
    Map<String, Object> status = (Map<String, Object>) client.genericKubernetesResources(ArgoRollouts.ROLLOUTS)
        .inNamespace(ns).withName("app").get().getAdditionalProperties().get("status");
    assertThat(status).containsOnlyKeys("currentPodHash", "stableRS");
  }

  @Test
  void flaggerConfirmPromotionIs403WhileWarmingAnd200OnceWarm() throws Exception {
    String ns = api.newNamespace("flagger");
    Deployment target = deployment(ns, "app", 1, false);
    Deployment primary = deployment(ns, "app-primary", 2, true);
    replicaSet(ns, "app-" + NEW, target, "pod-template-hash", NEW, 1);
    replicaSet(ns, "app-primary-" + OLD, primary, "pod-template-hash", OLD, 2);
    FakeAgents agents = new FakeAgents(redis.uri(), "deals-" + ns, ns);
    List<String> hot = fleet(agents);
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False",
        NewPodsGate.EXTERNAL_GATE);
    assertThat(policies.condition(ns, "deals", Conditions.ROLLOUT_HELD).orElseThrow()
        .getMessage()).contains("Flagger");

    String payload = "{\"name\":\"app\",\"namespace\":\"" + ns + "\",\"phase\":\"Progressing\","
        + "\"checksum\":\"6d5c\"}";
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      HttpResponse<String> r = post(payload);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
      assertThat(JSON.readTree(r.body()).get("reason").asText()).isEqualTo("Warming");
    });
    assertThat(JSON.readTree(post(payload).body()).get("workload").asText())
        .contains("Flagger canary of app-primary");

    agents.writeValues("bbb222", hot);
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      HttpResponse<String> r = post(payload);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(JSON.readTree(r.body()).get("coverage").asDouble()).isEqualTo(100.0);
    });

    // A Canary named otherwise finds no policy unless the webhook names it.
    HttpResponse<String> other = post(payload.replace("\"app\"", "\"frontend\""));
    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(other.body()).contains("metadata: {policy: <name>}");
    assertThat(post(payload.replace("\"app\"", "\"frontend\"")
        .replace("}", ",\"metadata\":{\"policy\":\"deals\"}}")).statusCode()).isEqualTo(200);
  }

  @Test
  void sameSchemaNewPodsAreWarmAtOnce() throws Exception {
    String ns = api.newNamespace("sameschema");
    Deployment target = deployment(ns, "app", 3, false);
    replicaSet(ns, "app-" + OLD, target, "pod-template-hash", OLD, 2, "1");
    replicaSet(ns, "app-" + NEW, target, "pod-template-hash", NEW, 1, "2");
    FakeAgents agents = new FakeAgents(redis.uri(), "deals-" + ns, ns);
    agents.register("old-1", OLD, "aaa111");
    agents.register("new-1", NEW, "aaa111");
    policies.policy(ns, "deals", "deals-" + ns, TargetKind.Deployment, "app",
        redis.host() + ":" + redis.port(), null);
    JsonNode json = awaitGate(ns, j -> j.get("warm").asBoolean());
    assertThat(json.get("reason").asText()).isEqualTo("SchemaUnchanged");
    assertThat(json.get("workload").asText()).isEqualTo("Deployment " + ns + "/app");
  }

  @Test
  void unknownPoliciesAndBadRequestsSayWhatToFix() throws Exception {
    HttpResponse<String> unknown = get("/gate/default/nothing");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("CachePolicy default/nothing not found");
    assertThat(get("/gate/Bad_Name/x").statusCode()).isEqualTo(400);
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri("/gate/default/x"))
        .DELETE().build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        uri(FlaggerHandler.PATH)).GET().build(), HttpResponse.BodyHandlers.ofString())
        .statusCode()).isEqualTo(405);
    assertThat(post("{\"namespace\":\"default\"}").statusCode()).isEqualTo(400);
  }

  static Deployment deployment(String ns, String name, int replicas, boolean flaggerPrimary) {
    DeploymentBuilder d = new DeploymentBuilder().withNewMetadata().withName(name)
        .withNamespace(ns).endMetadata().withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:2")
        .endContainer().endSpec().endTemplate().endSpec();
    if (flaggerPrimary) {
      d.editMetadata().addToOwnerReferences(new OwnerReferenceBuilder()
          .withApiVersion("flagger.app/v1beta1").withKind("Canary").withName("app")
          .withUid("00000000-0000-0000-0000-00000000ca11").withController(true).build())
          .endMetadata();
    }
    return client.resource(d.build()).create();
  }

  static void replicaSet(String ns, String name, HasMetadata owner, String label, String hash,
      int replicas) {
    replicaSet(ns, name, owner, label, hash, replicas, "1");
  }

  static void replicaSet(String ns, String name, HasMetadata owner, String label, String hash,
      int replicas, String revision) {
    String app = owner.getMetadata().getName();
    client.resource(new ReplicaSetBuilder().withNewMetadata().withName(name).withNamespace(ns)
        .addToLabels("app", app).addToLabels(label, hash)
        .addToAnnotations("deployment.kubernetes.io/revision", revision)
        .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion())
            .withKind(owner.getKind()).withName(app).withUid(owner.getMetadata().getUid())
            .withController(true).build())
        .endMetadata().withNewSpec().withReplicas(replicas)
        .withNewSelector().addToMatchLabels("app", app).addToMatchLabels(label, hash)
        .endSelector().withNewTemplate().withNewMetadata().addToLabels("app", app)
        .addToLabels(label, hash).endMetadata().withNewSpec().addNewContainer().withName("app")
        .withImage("registry.invalid/app:2").endContainer().endSpec().endTemplate().endSpec()
        .build()).create();
  }

  static JsonNode awaitGate(String ns, java.util.function.Predicate<JsonNode> until) {
    JsonNode[] last = new JsonNode[1];
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      HttpResponse<String> r = get("/gate/" + ns + "/deals");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      last[0] = JSON.readTree(r.body());
      assertThat(until.test(last[0])).as(r.body()).isTrue();
    });
    return last[0];
  }

  static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + operator.get().httpPort() + path);
  }

  static HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri(path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri(FlaggerHandler.PATH))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
