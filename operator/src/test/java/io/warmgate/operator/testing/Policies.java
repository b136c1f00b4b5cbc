package io.warmgate.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.status.Conditions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Builds the objects a CachePolicy refers to and waits for its conditions. */
public final class Policies {

  /** How often the operator under test re-probes Valkey. */
  public static final Duration RECHECK = Duration.ofSeconds(1);
  /** Upper bound for any condition to follow a change. */
  /** The allowlist of the tests' operators: their Valkey servers listen on loopback. */
  public static final String LOOPBACK = "127.0.0.1,localhost";
  public static final Duration WITHIN = Duration.ofSeconds(30);

  private final KubernetesClient client;

  public Policies(KubernetesClient client) {
    this.client = client;
  }

  /** Settings for an operator under test: no leader election, fast rechecks, a free HTTP port. */
  public static OperatorSettings testSettings() {
    return OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", LOOPBACK,
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "1s",
        "WARMGATE_VALKEY_TIMEOUT", "1s",
        "WARMGATE_SHUTDOWN_TIMEOUT", "5s"));
  }

  /** Starts the operator with the test settings against {@code client}. */
  public static WarmgateOperator startOperator(KubernetesClient client) {
    return WarmgateOperator.start(testSettings(), client);
  }

  public Deployment deployment(String namespace, String name) {
    return client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec()
        .withNewSelector().addToMatchLabels("app", name).endSelector()
        .withNewTemplate()
        .withNewMetadata().addToLabels("app", name).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:1")
        .endContainer().endSpec()
        .endTemplate()
        .endSpec().build()).create();
  }

  /** An Argo Rollouts Rollout (its CRD must be installed). */
  public GenericKubernetesResource rollout(String namespace, String name) {
    return client.resource(new GenericKubernetesResourceBuilder()
        .withApiVersion("argoproj.io/v1alpha1").withKind("Rollout")
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "selector", Map.of("matchLabels", Map.of("app", name)),
            "template", Map.of(
                "metadata", Map.of("labels", Map.of("app", name)),
                "spec", Map.of("containers", List.of(
                    Map.of("name", "app", "image", "registry.invalid/app:1")))),
            "strategy", Map.of("canary", Map.of("steps", List.of(
                Map.of("setWeight", 20), Map.of("pause", Map.of()))))))
        .build()).create();
  }

  public Secret secret(String namespace, String name, String key, String value) {
    return client.secrets().inNamespace(namespace).resource(new SecretBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .addToStringData(key, value).build()).serverSideApply();
  }

  /**
   * A policy targeting {@code target} with Valkey at {@code address}, password from a Secret, and
   * a cache name of its own ({@code <name>-<namespace>}): policies that share a Valkey and a cache
   * name are reported {@code CacheNameInUse}.
   */
  public CachePolicy policy(String namespace, String name, TargetKind kind, String target,
      String address, String passwordSecret) {
    String cacheName = (name + "-" + namespace).substring(0, Math.min(63, name.length() + 1
        + namespace.length())).replaceAll("-+$", "");
    return policy(namespace, name, cacheName, kind, target, address, passwordSecret);
  }

  /** As {@link #policy(String, String, TargetKind, String, String, String)}, with a cache name. */
  public CachePolicy policy(String namespace, String name, String cacheName, TargetKind kind,
      String target, String address, String passwordSecret) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(kind, target));
    spec.setCacheName(cacheName);
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of(address));
    if (passwordSecret != null) {
      valkey.setPasswordSecretKeyRef(new SecretKeyRef(passwordSecret, "password"));
    }
    spec.setValkey(valkey);
    policy.setSpec(spec);
    return client.resource(policy).create();
  }

  public CachePolicy get(String namespace, String name) {
    return client.resources(CachePolicy.class).inNamespace(namespace).withName(name).get();
  }

  public Optional<Condition> condition(String namespace, String name, String type) {
    CachePolicy policy = get(namespace, name);
    return policy == null ? Optional.empty() : Conditions.find(policy.getStatus(), type);
  }

  /** Waits until condition {@code type} has {@code status} and {@code reason}; returns it. */
  public Condition awaitCondition(String namespace, String name, String type, String status,
      String reason) {
    await().atMost(WITHIN).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(condition(namespace, name, type)).hasValueSatisfying(c -> {
          assertThat(c.getStatus()).as("%s status (%s)", type, c).isEqualTo(status);
          assertThat(c.getReason()).as("%s reason (%s)", type, c).isEqualTo(reason);
        }));
    return condition(namespace, name, type).orElseThrow();
  }

  /** The Events recorded on the named CachePolicy, oldest first. */
  public List<Event> events(String namespace, String name) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> "CachePolicy".equals(e.getInvolvedObject().getKind())
            && name.equals(e.getInvolvedObject().getName()))
        .sorted(java.util.Comparator.comparing(e -> e.getMetadata().getCreationTimestamp()))
        .toList();
  }
}
