package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.contract.AgentVariables;
import java.io.ByteArrayInputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One deal-service workload with its CachePolicy, each with a name of its own (so tests do not
 * share a cache), and its pods, which the {@link Stack} runs (or finds) and reaches. The policy is
 * an example of {@code examples/} made to point at this stack; the workload is the subclass's.
 */
abstract class DealApp implements AutoCloseable {

  final String name;
  final String cacheName;
  protected final KubernetesClient client;
  protected final String namespace;
  /** The policy as first applied, to apply again after it was deleted. */
  private final String policyManifest;
  private Stack.AppPods pods;

  /**
   * Applies the policy of {@code policyExample} named {@code name} and targeting the workload of
   * that name.
   *
   * @param warmup replaces the example policy's {@code spec.warmup} entries given here
   * @param spec other {@code spec} entries of the policy, set as given
   */
  DealApp(KubernetesClient client, String namespace, String name, Stack stack,
      String policyExample, Map<String, Object> warmup, Map<String, Object> spec) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.cacheName = name;

    GenericKubernetesResource policy = load(policyExample);
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    Map<String, Object> policySpec = map(policy.getAdditionalProperties().get("spec"));
    policySpec.putAll(spec);
    policySpec.put("cacheName", cacheName);
    map(policySpec.get("targetRef")).put("name", name);
    map(policySpec.get("valkey")).put("addresses", stack.valkeyAddresses());
    map(policySpec.get("valkey")).put("mode", stack.valkeyCluster() ? "Cluster" : "Standalone");
    map(policySpec.get("warmup")).putAll(warmup);
    // Every pod here shares two cores with the cluster and the other pods: with the default 20 ms
    // L2 budget, a lookup whose thread is scheduled late would count as an L2 failure and go to
    // Spanner, and the test measures Spanner reads.
    policySpec.put("l2Timeout", "250ms");
    policyManifest = Serialization.asJson(policy);
    client.resource(policy).serverSideApply();
  }

  /** The workload the policy targets. */
  abstract Resource<GenericKubernetesResource> workload();

  /** The workload's kind, as Events name it. */
  abstract String workloadKind();

  /**
   * Applies {@code workload}, an example whose pod template is {@code examples/local/rollout.yaml}'s
   * (the app's environment), named, labelled and pointed at this stack, then starts its pods.
   */
  protected final void applyAndRun(GenericKubernetesResource workload, int replicas, Stack stack,
      Path workdir) {
    workload.getMetadata().setName(name);
    workload.getMetadata().setNamespace(namespace);
    Map<String, Object> workloadSpec = map(workload.getAdditionalProperties().get("spec"));
    workloadSpec.put("replicas", replicas);
    map(map(workloadSpec.get("selector")).get("matchLabels")).put("app", name);
    Map<String, Object> template = map(workloadSpec.get("template"));
    Map<String, Object> labels = map(map(template.get("metadata")).get("labels"));
    labels.put("app", name);
    labels.put("warmgate.io/cache-policy", name);
    Map<String, String> appEnv = stack.spannerEnv();
    for (Map<String, Object> env : env(template)) {
      env.computeIfPresent("value", (k, v) -> appEnv.getOrDefault((String) env.get("name"), (String) v));
    }
    // Every lookup sampled: the scenarios' few hundred lookups a second teach the hot set in
    // seconds, not the minutes the default 1 in 16 takes at that rate.
    env(template).add(new LinkedHashMap<>(Map.of("name", AgentVariables.HOT_SAMPLE_PERIOD, "value", "1")));
    stack.adaptAppContainer(container(template));
    client.resource(workload).serverSideApply();
    pods = stack.appPods(client, namespace, name, workdir);
  }

  static GenericKubernetesResource load(String path) {
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

  Resource<GenericKubernetesResource> policy() {
    return client.genericKubernetesResources("warmgate.io/v1alpha1", "CachePolicy").inNamespace(namespace)
        .withName(name);
  }

  /** Sets an env value of the app container, as a user editing the workload would. */
  void setEnv(String variable, String value) {
    onConflictAgain(() -> workload().edit(r -> {
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
   * object changed in between (the controllers and the operator write the same objects), as
   * {@code kubectl edit} users do.
   */
  static <T> T onConflictAgain(Supplier<T> edit) {
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

  /** The policy's {@code status.gate}, empty when it has none. */
  Map<String, Object> gate() {
    Object gate = policyStatus().get("gate");
    return gate == null ? Map.of() : map(gate);
  }

  /** The policy's finalizers, empty when it has none or does not exist. */
  List<String> policyFinalizers() {
    GenericKubernetesResource p = policy().get();
    return p == null || p.getMetadata().getFinalizers() == null ? List.of()
        : p.getMetadata().getFinalizers();
  }

  /**
   * Events with {@code reason} about the workload, recorded at or after {@code since} (Event times
   * have whole seconds), oldest first.
   */
  List<Event> workloadEvents(String reason, Instant since) {
    return events(workloadKind(), reason, since);
  }

  /** As {@link #workloadEvents}, about the CachePolicy. */
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

  /** The pods the app's Service selects: the workload's own, unless a subclass says otherwise. */
  protected Stack.AppPods servingPods() {
    return pods;
  }

  /** The local ports of the pods the Service selects that serve and are Ready. */
  List<Integer> ports() {
    return servingPods().ports();
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

  /** The pod-template hash of each of the Service's pods that runs now. */
  List<String> podTemplateHashes() {
    return servingPods().templateHashes();
  }

  int runningPods() {
    return servingPods().ports().size();
  }

  /** Whether the workload has rolled out its latest spec: all its pods new, Ready and serving. */
  abstract boolean healthyAndDone();

  @Override
  public void close() {
    if (pods != null) {
      pods.close();
    }
    workload().delete();
    policy().delete();
  }
}
