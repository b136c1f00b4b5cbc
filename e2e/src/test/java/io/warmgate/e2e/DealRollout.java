package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.testing.ArgoRollouts;
import java.io.ByteArrayInputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
  /** The policy as first applied, to apply again after it was deleted. */
  private final String policyManifest;

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   */
  DealRollout(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir) {
    this(client, namespace, name, stack, warmup, Map.of(), workdir, 4);
  }

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   * @param replicas the Rollout's {@code spec.replicas}
   */
  DealRollout(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir, int replicas) {
    this(client, namespace, name, stack, warmup, Map.of(), workdir, replicas);
  }

  /**
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   * @param spec other {@code spec} entries of the policy, set as given
   * @param replicas the Rollout's {@code spec.replicas}
   */
  DealRollout(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Map<String, Object> spec, Path workdir, int replicas) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.cacheName = name;

    GenericKubernetesResource policy = load("examples/local/cachepolicy.yaml");
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    Map<String, Object> policySpec = map(policy.getAdditionalProperties().get("spec"));
    policySpec.putAll(spec);
    spec = policySpec;
    spec.put("cacheName", cacheName);
    map(spec.get("targetRef")).put("name", name);
    map(spec.get("valkey")).put("addresses", stack.valkeyAddresses());
    map(spec.get("valkey")).put("mode", stack.valkeyCluster() ? "Cluster" : "Standalone");
    map(spec.get("warmup")).putAll(warmup);
    // Every pod here shares two cores with the cluster and the other pods: with the default 20 ms
    // L2 budget, a lookup whose thread is scheduled late would count as an L2 failure and go to
    // Spanner, and the test measures Spanner reads.
    spec.put("l2Timeout", "250ms");
    policyManifest = Serialization.asJson(policy);
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
    onConflictAgain(() -> rollout().edit(r -> {
      for (Map<String, Object> env : env(map(map(r.getAdditionalProperties().get("spec")).get("template")))) {
        if (variable.equals(env.get("name"))) {
          env.put("value", value);
        }
      }
      return r;
    }));
  }

  /**
   * Runs {@code edit} (a read-modify-write with the read's resourceVersion), again when the
   * object changed in between (the Argo controller and the operator write the same objects), as
   * {@code kubectl edit} users do.
   */
  private static <T> T onConflictAgain(Supplier<T> edit) {
    for (int attempt = 1; ; attempt++) {
      try {
        return edit.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** Applies the policy as it was first applied (after a test deleted it). */
  void applyPolicyAgain() {
    client.resource(Serialization.unmarshal(policyManifest, GenericKubernetesResource.class))
        .serverSideApply();
  }

  /**
   * Edits the policy's {@code spec.warmup} as a user would: each entry of {@code changes} is set,
   * an entry whose value is null is removed.
   *
   * @return the policy's new {@code metadata.generation}
   */
  long editWarmup(Map<String, Object> changes) {
    GenericKubernetesResource edited = onConflictAgain(() -> policy().edit(p -> {
      Map<String, Object> warmup = map(map(p.getAdditionalProperties().get("spec")).get("warmup"));
      changes.forEach((field, value) -> {
        if (value == null) {
          warmup.remove(field);
        } else {
          warmup.put(field, value);
        }
      });
      return p;
    }));
    return edited.getMetadata().getGeneration();
  }

  /**
   * Creates an AnalysisTemplate of one {@code metric} and runs it as the canary's background
   * analysis from step {@code startingStep} on, as a user adding analysis to the strategy would.
   */
  void analyseInBackground(Map<String, Object> metric, int startingStep) {
    String template = name + "-analysis";
    client.resource(new GenericKubernetesResourceBuilder()
        .withApiVersion(ArgoRollouts.API_VERSION).withKind("AnalysisTemplate")
        .withNewMetadata().withName(template).withNamespace(namespace).endMetadata()
        .addToAdditionalProperties("spec", Map.of("metrics", List.of(metric)))
        .build()).serverSideApply();
    onConflictAgain(() -> rollout().edit(r -> {
      Map<String, Object> canary = map(map(map(r.getAdditionalProperties().get("spec"))
          .get("strategy")).get("canary"));
      canary.put("analysis", Map.of("templates", List.of(Map.of("templateName", template)),
          "startingStep", startingStep));
      return r;
    }));
  }

  /**
   * Gates the canary with an Argo analysis instead of the pause step: applies
   * {@code examples/analysis/analysistemplate.yaml} as it is but for its namespace and the
   * operator's address ({@code operator}, {@code host:port}), and puts an analysis step of it
   * (argument {@code policy} = this policy) where the example's {@code pause: {}} step is (step 1).
   */
  void gateByAnalysis(String operator) {
    GenericKubernetesResource template = load("examples/analysis/analysistemplate.yaml");
    template.getMetadata().setNamespace(namespace);
    String manifest = Serialization.asJson(template).replace(
        "http://warmgate-operator-metrics.warmgate.svc:8080/gate/shop/",
        "http://" + operator + "/gate/" + namespace + "/");
    client.resource(Serialization.unmarshal(manifest, GenericKubernetesResource.class))
        .serverSideApply();
    onConflictAgain(() -> rollout().edit(r -> {
      Map<String, Object> canary = map(map(map(r.getAdditionalProperties().get("spec"))
          .get("strategy")).get("canary"));
      canary.put("steps", List.of(Map.of("setWeight", 25),
          Map.of("analysis", Map.of(
              "templates", List.of(Map.of("templateName", template.getMetadata().getName())),
              "args", List.of(Map.of("name", "policy", "value", name)))),
          Map.of("setWeight", 100)));
      return r;
    }));
  }

  /** The AnalysisRuns of this Rollout, oldest first. */
  List<GenericKubernetesResource> analysisRuns() {
    return client.genericKubernetesResources(ArgoRollouts.API_VERSION, "AnalysisRun")
        .inNamespace(namespace).list().getItems().stream()
        .filter(run -> run.getMetadata().getOwnerReferences() != null && run.getMetadata()
            .getOwnerReferences().stream().anyMatch(o -> name.equals(o.getName())))
        .sorted(Comparator.comparing(run -> run.getMetadata().getCreationTimestamp()))
        .toList();
  }

  /** The reasons of the Rollout's pause conditions, in order. */
  List<String> pauseReasons() {
    return pauseReasons(rolloutStatus());
  }

  private static List<String> pauseReasons(Map<String, Object> rolloutStatus) {
    Object conditions = rolloutStatus.get("pauseConditions");
    return conditions instanceof List<?> list ? list.stream()
        .map(c -> c instanceof Map<?, ?> m ? String.valueOf(m.get("reason")) : "?").toList()
        : List.of();
  }

  /** Aborts the canary the way {@code kubectl argo rollouts abort} does. */
  void abort() {
    patchRolloutStatus("{\"status\":{\"abort\":true}}");
  }

  /** Retries an aborted canary the way {@code kubectl argo rollouts retry rollout} does. */
  void retry() {
    patchRolloutStatus("{\"status\":{\"abort\":false}}");
  }

  /**
   * Promotes a canary paused at a step the way {@code kubectl argo rollouts promote} does for a
   * Rollout whose {@code spec.paused} is unset: it clears the pause conditions.
   */
  void promote() {
    patchRolloutStatus("{\"status\":{\"pauseConditions\":null}}");
  }

  private void patchRolloutStatus(String mergePatch) {
    rollout().subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  /** {@code status.currentPodHash}: the pod-template hash of the revision being rolled out. */
  String currentPodHash() {
    return (String) rolloutStatus().get("currentPodHash");
  }

  /** The Rollout's annotations, empty when it has none or does not exist. */
  Map<String, String> rolloutAnnotations() {
    GenericKubernetesResource r = rollout().get();
    return r == null || r.getMetadata().getAnnotations() == null ? Map.of()
        : r.getMetadata().getAnnotations();
  }

  /** The policy's condition of {@code type} as a map, empty when absent. */
  @SuppressWarnings("unchecked")
  Map<String, Object> condition(String type) {
    Map<String, Object> status = policyStatus();
    Object conditions = status.get("conditions");
    if (!(conditions instanceof List<?> list)) {
      return Map.of();
    }
    return list.stream().map(c -> (Map<String, Object>) c).filter(c -> type.equals(c.get("type")))
        .findFirst().orElse(Map.of());
  }

  /** The policy's {@code status}, empty when it has none or does not exist. */
  Map<String, Object> policyStatus() {
    GenericKubernetesResource p = policy().get();
    Object status = p == null ? null : p.getAdditionalProperties().get("status");
    return status == null ? Map.of() : map(status);
  }

  /** The policy's finalizers, empty when it has none or does not exist. */
  List<String> policyFinalizers() {
    GenericKubernetesResource p = policy().get();
    return p == null || p.getMetadata().getFinalizers() == null ? List.of()
        : p.getMetadata().getFinalizers();
  }

  /**
   * Events with {@code reason} about the Rollout, recorded at or after {@code since} (Event times
   * have whole seconds), oldest first.
   */
  List<Event> rolloutEvents(String reason, Instant since) {
    return events("Rollout", reason, since);
  }

  /** As {@link #rolloutEvents}, about the CachePolicy. */
  List<Event> policyEvents(String reason, Instant since) {
    return events("CachePolicy", reason, since);
  }

  private List<Event> events(String kind, String reason, Instant since) {
    Instant from = since.truncatedTo(ChronoUnit.SECONDS);
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> kind.equals(e.getInvolvedObject().getKind())
            && name.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .filter(e -> e.getLastTimestamp() != null && !Instant.parse(e.getLastTimestamp()).isBefore(from))
        .sorted(Comparator.comparing(Event::getLastTimestamp))
        .toList();
  }

  Map<String, Object> rolloutStatus() {
    GenericKubernetesResource r = rollout().get();
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    return status == null ? Map.of() : map(status);
  }

  Map<String, Object> gate() {
    Object gate = policyStatus().get("gate");
    return gate == null ? Map.of() : map(gate);
  }

  /** Healthy on its current revision, past the last step. */
  boolean healthyAndDone() {
    Map<String, Object> s = rolloutStatus();
    return "Healthy".equals(s.get("phase")) && s.get("currentPodHash") != null
        && s.get("currentPodHash").equals(s.get("stableRS"));
  }

  /**
   * Held at the gate step (step 1 of the example's canary steps) as the operator's decision table
   * defines it: a canary differing from stable, at that step, with a {@code CanaryPauseStep}
   * pause condition, not aborted.
   */
  boolean heldAtGate() {
    Map<String, Object> s = rolloutStatus();
    return pauseReasons(s).contains("CanaryPauseStep") && s.get("currentPodHash") != null
        && !s.get("currentPodHash").equals(s.get("stableRS"))
        && Integer.valueOf(1).equals(s.get("currentStepIndex")) && !Boolean.TRUE.equals(s.get("abort"));
  }

  boolean paused() {
    return !pauseReasons().isEmpty();
  }

  List<Integer> ports() {
    return pods.ports();
  }

  /**
   * What decided where the origin reads of the running pods of {@code schemaHash} came from,
   * summed over them from their {@code /metrics}: fill lease outcomes, refreshes, L2 errors and
   * skips. Printed beside a count of origin reads, it tells a duplicate read's cause (a lease wait
   * that timed out, an L2 call that failed and skipped the lease, a refresh) from a bug.
   */
  String originReadCauses(String schemaHash) {
    Pattern sample = Pattern.compile(
        "^(warmgate_(?:fill_lease|refresh|l2_errors|l2_skipped|origin_keys|origin_errors)_total)"
            + "\\{([^}]*)\\} (\\S+)$");
    Pattern label = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    Map<String, Double> sums = new TreeMap<>();
    int scraped = 0;
    for (int port : ports()) {
      String info = Http.body("http://127.0.0.1:" + port + "/info");
      String metrics = info == null || !info.contains("\"" + schemaHash + "\"") ? null
          : Http.body("http://127.0.0.1:" + port + "/metrics");
      if (metrics == null) {
        continue;
      }
      scraped++;
      for (String line : metrics.split("\n")) {
        Matcher m = sample.matcher(line);
        if (!m.matches() || !m.group(2).contains("cache=\"" + cacheName + "\"")) {
          continue;
        }
        StringBuilder key = new StringBuilder(m.group(1).replace("warmgate_", "").replace("_total", ""));
        Matcher l = label.matcher(m.group(2));
        while (l.find()) {
          if (List.of("outcome", "result", "kind").contains(l.group(1))) {
            key.append(' ').append(l.group(2));
          }
        }
        sums.merge(key.toString(), Double.parseDouble(m.group(3)), Double::sum);
      }
    }
    StringBuilder out = new StringBuilder(scraped + " pods of " + schemaHash + " serving:");
    sums.forEach((key, value) -> out.append(' ').append(key).append('=').append(value.longValue()).append(';'));
    return out.toString();
  }

  /** The pod-template hash of each of the app's pods that runs now. */
  List<String> podTemplateHashes() {
    return pods.templateHashes();
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
