package io.warmgate.operator.policy;

import static io.warmgate.operator.testing.Policies.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.RedisExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The reconciler against a real API server and a real password-protected Redis. */
class CachePolicyReconcilerIT {

  static final String PASSWORD = "s3cret-pw";

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.withPassword(PASSWORD);

  /** A server that requires no password. */
  @RegisterExtension
  static final RedisExtension open = new RedisExtension();

  static Policies policies;

  String ns;

  @BeforeAll
  static void clients() {
    policies = operator.policies();
  }

  @BeforeEach
  void namespace(TestInfo test) {
    ns = api.newNamespace("it");
  }

  String valkey() {
    return redis.host() + ":" + redis.port();
  }

  @Test
  void readyWhenDeploymentSecretAndValkeyAreThere() {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);

    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), "valkey-auth");

    Condition ready = policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    Condition l2 = policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True",
        "Connected");
    CachePolicy policy = policies.get(ns, "deals");
    assertThat(policy.getStatus().getObservedGeneration()).isEqualTo(1L);
    assertThat(ready.getObservedGeneration()).isEqualTo(1L);
    assertThat(ready.getMessage()).contains("Deployment " + ns + "/app").contains(valkey());
    assertThat(l2.getMessage()).contains(valkey());
    assertThat(Instant.parse(ready.getLastTransitionTime())).isBefore(Instant.now().plusSeconds(1));
    await().atMost(WITHIN).untilAsserted(() -> assertThat(policies.events(ns, "deals"))
        .extracting(Event::getReason, Event::getType)
        .contains(org.assertj.core.groups.Tuple.tuple("Reconciled", "Normal"),
            org.assertj.core.groups.Tuple.tuple("Connected", "Normal")));
  }

  @Test
  void readyWhenTargetIsARollout() {
    policies.rollout(ns, "deal-service");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);

    policies.policy(ns, "deals", TargetKind.Rollout, "deal-service", valkey(), "valkey-auth");

    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  /** Issue 13 item 9: checked against the target Rollout's actual steps. */
  @Test
  void rolloutWithoutAnIndefinitePauseIsNoGateStepUntilOneIsAdded() {
    policies.rollout(ns, "deal-service");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    setSteps(List.of(Map.of("setWeight", 20), Map.of("pause", Map.of("duration", "1m"))));

    policies.policy(ns, "deals", TargetKind.Rollout, "deal-service", valkey(), "valkey-auth");

    Condition ready = policies.awaitCondition(ns, "deals", Conditions.READY, "False",
        "NoGateStep");
    assertThat(ready.getMessage()).contains("Rollout " + ns + "/deal-service cannot be held")
        .contains("pause: {}");

    setSteps(List.of(Map.of("setWeight", 20), Map.of("pause", Map.of())));
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  @SuppressWarnings("unchecked")
  private void setSteps(List<Map<String, Object>> steps) {
    api.client().genericKubernetesResources("argoproj.io/v1alpha1", "Rollout").inNamespace(ns)
        .withName("deal-service").edit(r -> {
          Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
          spec.put("strategy", Map.of("canary", Map.of("steps", steps)));
          return r;
        });
  }

  @Test
  void missingTargetIsTargetNotFoundUntilItIsCreated() {
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    policies.policy(ns, "deals", TargetKind.Rollout, "deal-service", valkey(), "valkey-auth");

    Condition ready =
        policies.awaitCondition(ns, "deals", Conditions.READY, "False", "TargetNotFound");
    assertThat(ready.getMessage()).contains("Rollout " + ns + "/deal-service")
        .contains("spec.targetRef");
    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True", "Connected");

    policies.rollout(ns, "deal-service");

    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  @Test
  void missingSecretIsSecretNotFoundUntilItIsCreated() {
    policies.deployment(ns, "app");
    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), "valkey-auth");

    Condition ready =
        policies.awaitCondition(ns, "deals", Conditions.READY, "False", "SecretNotFound");
    assertThat(ready.getMessage()).contains("Secret " + ns + "/valkey-auth")
        .contains("spec.valkey.passwordSecretKeyRef");
    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "Unknown", "NotChecked");

    policies.secret(ns, "valkey-auth", "password", PASSWORD);

    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True", "Connected");
  }

  @Test
  void secretWithoutTheKeyIsSecretKeyNotFound() {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "pass", PASSWORD);

    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), "valkey-auth");

    Condition ready =
        policies.awaitCondition(ns, "deals", Conditions.READY, "False", "SecretKeyNotFound");
    assertThat(ready.getMessage()).contains("no key 'password'");
  }

  @Test
  void wrongPasswordIsAuthFailedUntilTheSecretIsFixed() {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", "not-the-password");
    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), "valkey-auth");

    Condition l2 =
        policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "False", "AuthFailed");
    policies.awaitCondition(ns, "deals", Conditions.READY, "False", "AuthFailed");
    assertThat(l2.getMessage()).contains(valkey()).contains("passwordSecretKeyRef");
    assertThat(l2.getMessage()).doesNotContain("not-the-password");

    policies.secret(ns, "valkey-auth", "password", PASSWORD);

    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True", "Connected");
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
  }

  @Test
  void noPasswordAgainstAProtectedServerIsAuthFailed() {
    policies.deployment(ns, "app");

    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), null);

    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "False", "AuthFailed");
  }

  @Test
  void aPasswordTheServerDoesNotRequireIsNotReady() {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    String address = open.host() + ":" + open.port();

    policies.policy(ns, "deals", TargetKind.Deployment, "app", address, "valkey-auth");

    policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "True", "Connected");
    Condition ready =
        policies.awaitCondition(ns, "deals", Conditions.READY, "False", "PasswordNotRequired");
    assertThat(ready.getMessage()).contains(address).contains("passwordSecretKeyRef")
        .contains("requirepass").doesNotContain(PASSWORD);
  }

  @Test
  void aSecondPolicyWithTheSameCacheNameOnTheSameValkeyIsNotReadyUntilTheFirstGoes() {
    String other = api.newNamespace("it");
    String cache = "shared-" + ns;
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    policies.secret(other, "valkey-auth", "password", PASSWORD);
    policies.deployment(ns, "app");
    policies.deployment(other, "app");
    policies.policy(ns, "deals", cache, TargetKind.Deployment, "app", valkey(), "valkey-auth");
    policies.awaitCondition(ns, "deals", Conditions.READY, "True", "Reconciled");
    // creationTimestamp has whole seconds; within one second the tie goes by namespace and name.
    awaitNextSecond(policies.get(ns, "deals").getMetadata().getCreationTimestamp());

    policies.policy(other, "deals", cache, TargetKind.Deployment, "app", valkey(), "valkey-auth");

    Condition second =
        policies.awaitCondition(other, "deals", Conditions.READY, "False", "CacheNameInUse");
    assertThat(second.getMessage()).contains("CachePolicy " + ns + "/deals")
        .contains("'" + cache + "'").contains(valkey()).contains("spec.cacheName");
    assertThat(policies.condition(ns, "deals", Conditions.READY).orElseThrow().getStatus())
        .as("the older policy keeps its cache").isEqualTo("True");

    api.client().resources(CachePolicy.class).inNamespace(ns).withName("deals").delete();
    policies.awaitCondition(other, "deals", Conditions.READY, "True", "Reconciled");
  }

  private static void awaitNextSecond(String creationTimestamp) {
    Instant created = Instant.parse(creationTimestamp);
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
        .until(() -> Instant.now().isAfter(created.plusMillis(1_100)));
  }

  @Test
  void nothingListeningIsConnectionRefused() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    policies.deployment(ns, "app");

    policies.policy(ns, "deals", TargetKind.Deployment, "app", "127.0.0.1:" + closedPort, null);

    Condition l2 = policies.awaitCondition(ns, "deals", Conditions.L2_REACHABLE, "False",
        "ConnectionRefused");
    assertThat(l2.getMessage()).contains("127.0.0.1:" + closedPort)
        .contains("spec.valkey.addresses");
    policies.awaitCondition(ns, "deals", Conditions.READY, "False", "ConnectionRefused");
  }

  @Test
  void specEditIsFollowedByObservedGeneration() {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    policies.policy(ns, "deals", TargetKind.Deployment, "app", valkey(), "valkey-auth");
    Condition before = policies.awaitCondition(ns, "deals", Conditions.READY, "True",
        "Reconciled");

    api.client().resources(CachePolicy.class).inNamespace(ns).withName("deals")
        .edit(p -> {
          p.getSpec().setL1Ttl("30s");
          return p;
        });

    await().atMost(WITHIN).untilAsserted(() -> {
      CachePolicy policy = policies.get(ns, "deals");
      assertThat(policy.getMetadata().getGeneration()).isEqualTo(2L);
      assertThat(policy.getStatus().getObservedGeneration()).isEqualTo(2L);
      assertThat(Conditions.find(policy.getStatus(), Conditions.READY).orElseThrow()
          .getObservedGeneration()).isEqualTo(2L);
    });
    Condition after = policies.condition(ns, "deals", Conditions.READY).orElseThrow();
    assertThat(after.getLastTransitionTime()).isEqualTo(before.getLastTransitionTime());
  }

  @Test
  void deletingTheLastPolicyOfAnEndpointClosesItsClient() throws Exception {
    policies.deployment(ns, "app");
    policies.secret(ns, "valkey-auth", "password", PASSWORD);
    // "localhost" instead of the IP makes an endpoint no other test uses.
    String address = "localhost:" + redis.port();
    int before = openClients();

    policies.policy(ns, "own", TargetKind.Deployment, "app", address, "valkey-auth");
    policies.awaitCondition(ns, "own", Conditions.READY, "True", "Reconciled");
    assertThat(openClients()).isEqualTo(before + 1);

    api.client().resources(CachePolicy.class).inNamespace(ns).withName("own").delete();

    await().atMost(WITHIN).until(() -> openClients() == before);
    await().atMost(WITHIN).until(() -> policies.get(ns, "own") == null);
  }

  static int openClients() throws IOException, InterruptedException {
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + operator.get().httpPort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return metrics.lines().filter(l -> l.startsWith("warmgate_valkey_clients "))
        .map(l -> (int) Double.parseDouble(l.substring(l.indexOf(' ') + 1).trim()))
        .findFirst().orElseThrow(() -> new AssertionError("no warmgate_valkey_clients in "
            + "/metrics"));
  }
}
