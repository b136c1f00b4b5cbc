package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.testing.ArgoRollouts;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One deal-service Rollout with its CachePolicy, made from {@code examples/local/rollout.yaml} and
 * {@code examples/local/cachepolicy.yaml} with a name of its own (so tests do not share a cache),
 * and its pods, which the {@link Stack} runs (or finds) and reaches.
 */
final class DealRollout implements AutoCloseable {

  final String name;
  final String cacheName;
  private final KubernetesClient client;
  private final String namespace;
  private final Stack.AppPods pods;

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   */
  DealRollout(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir) {
    this(client, namespace, name, stack, warmup, workdir, 4);
  }

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   * @param replicas the Rollout's {@code spec.replicas}
   */
  DealRollout(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir, int replicas) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.cacheName = name;

    GenericKubernetesResource policy = load("examples/local/cachepolicy.yaml");
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    Map<String, Object> spec = map(policy.getAdditionalProperties().get("spec"));
    spec.put("cacheName", cacheName);
    map(spec.get("targetRef")).put("name", name);
    map(spec.get("valkey")).put("addresses", List.of(stack.valkeyAddress()));
    map(spec.get("warmup")).putAll(warmup);
    // Every pod here shares two cores with the cluster and the other pods: with the default 20 ms
    // L2 budget, a lookup whose thread is scheduled late would count as an L2 failure and go to
    // Spanner, and the test measures Spanner reads.
    spec.put("l2Timeout", "250ms");
    client.resource(policy).serverSideApply();

    GenericKubernetesResource rollout = load("examples/local/rollout.yaml");
    rollout.getMetadata().setName(name);
    rollout.getMetadata().setNamespace(namespace);
    Map<String, Object> rolloutSpec = map(rollout.getAdditionalProperties().get("spec"));
    rolloutSpec.put("replicas", replicas);
    map(map(rolloutSpec.get("selector")).get("matchLabels")).put("app", name);
    Map<String, Object> template = map(rolloutSpec.get("template"));
    Map<String, Object> labels = map(map(template.get("metadata")).get("labels"));
    labels.put("app", name);
    labels.put("warmgate.io/cache-policy", name);
    Map<String, String> appEnv = stack.spannerEnv();
    for (Map<String, Object> env : env(template)) {
      env.computeIfPresent("value", (k, v) -> appEnv.getOrDefault((String) env.get("name"), (String) v));
    }
    stack.adaptAppContainer(container(template));
    client.resource(rollout).serverSideApply();

    pods = stack.appPods(client, namespace, name, workdir);
  }

  private static GenericKubernetesResource load(String path) {
    return Serialization.unmarshal(new ByteArrayInputStream(Repo.manifest(path).getBytes(StandardCharsets.UTF_8)),
        GenericKubernetesResource.class);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> container(Map<String, Object> template) {
    Map<String, Object> podSpec = map(template.get("spec"));
    return ((List<Map<String, Object>>) podSpec.get("containers")).get(0);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> env(Map<String, Object> template) {
    return (List<Map<String, Object>>) container(template).get("env");
  }

  Resource<GenericKubernetesResource> rollout() {
    return client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(namespace).withName(name);
  }

  Resource<GenericKubernetesResource> policy() {
    return client.genericKubernetesResources("warmgate.io/v1alpha1", "CachePolicy").inNamespace(namespace)
        .withName(name);
  }

  /** Sets an env value of the app container, as a user editing the Rollout would. */
  void setEnv(String variable, String value) {
    rollout().edit(r -> {
      for (Map<String, Object> env : env(map(map(r.getAdditionalProperties().get("spec")).get("template")))) {
        if (variable.equals(env.get("name"))) {
          env.put("value", value);
        }
      }
      return r;
    });
  }

  Map<String, Object> rolloutStatus() {
    GenericKubernetesResource r = rollout().get();
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    return status == null ? Map.of() : map(status);
  }

  Map<String, Object> gate() {
    GenericKubernetesResource p = policy().get();
    Object status = p == null ? null : p.getAdditionalProperties().get("status");
    Object gate = status == null ? null : map(status).get("gate");
    return gate == null ? Map.of() : map(gate);
  }

  /** Healthy on its current revision, past the last step. */
  boolean healthyAndDone() {
    Map<String, Object> s = rolloutStatus();
    return "Healthy".equals(s.get("phase")) && s.get("currentPodHash") != null
        && s.get("currentPodHash").equals(s.get("stableRS"));
  }

  boolean paused() {
    Object conditions = rolloutStatus().get("pauseConditions");
    return conditions instanceof List<?> list && !list.isEmpty();
  }

  List<Integer> ports() {
    return pods.ports();
  }

  int runningPods() {
    return pods.ports().size();
  }

  @Override
  public void close() {
    pods.close();
    rollout().delete();
    policy().delete();
  }
}
