package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.testing.ArgoRollouts;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One deal-service Rollout, made from {@code examples/local/rollout.yaml}, with its CachePolicy,
 * made from {@code examples/local/cachepolicy.yaml}.
 */
final class DealRollout extends DealApp {

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
    super(client, namespace, name, stack, "examples/local/cachepolicy.yaml", warmup, spec);
    applyAndRun(load("examples/local/rollout.yaml"), replicas, stack, workdir);
  }

  @Override
  Resource<GenericKubernetesResource> workload() {
    return rollout();
  }

  @Override
  String workloadKind() {
    return "Rollout";
  }

  Resource<GenericKubernetesResource> rollout() {
    return client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(namespace).withName(name);
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
    String template = applyAnalysisTemplate(operator);
    onConflictAgain(() -> rollout().edit(r -> {
      Map<String, Object> canary = map(map(map(r.getAdditionalProperties().get("spec"))
          .get("strategy")).get("canary"));
      canary.put("steps", List.of(Map.of("setWeight", 25),
          Map.of("analysis", Map.of(
              "templates", List.of(Map.of("templateName", template)),
              "args", List.of(Map.of("name", "policy", "value", name)))),
          Map.of("setWeight", 100)));
      return r;
    }));
  }

  /**
   * Makes this Rollout blue-green, gated by {@code examples/analysis/}: its {@code blueGreen}
   * strategy of {@code rollout-bluegreen.yaml} (the active and preview Services, named after this
   * Rollout and created here, and a {@code prePromotionAnalysis} of the example AnalysisTemplate
   * asking the operator at {@code operator}, {@code host:port}, with {@code policy} = this
   * policy) replaces the canary steps, as a user switching strategies between releases would.
   */
  void gateBlueGreenByAnalysis(String operator) {
    String template = applyAnalysisTemplate(operator);
    for (String service : List.of(name, name + "-preview")) {
      client.services().inNamespace(namespace).resource(new ServiceBuilder()
          .withNewMetadata().withName(service).withNamespace(namespace).endMetadata()
          .withNewSpec().addToSelector("app", name)
          .addNewPort().withPort(8080).withNewTargetPort(8080).endPort().endSpec().build())
          .serverSideApply();
    }
    Map<String, Object> blueGreen = map(map(map(load("examples/analysis/rollout-bluegreen.yaml")
        .getAdditionalProperties().get("spec")).get("strategy")).get("blueGreen"));
    blueGreen.put("activeService", name);
    blueGreen.put("previewService", name + "-preview");
    Map<String, Object> analysis = map(blueGreen.get("prePromotionAnalysis"));
    analysis.put("templates", List.of(Map.of("templateName", template)));
    analysis.put("args", List.of(Map.of("name", "policy", "value", name)));
    onConflictAgain(() -> rollout().edit(r -> {
      map(r.getAdditionalProperties().get("spec")).put("strategy", Map.of("blueGreen", blueGreen));
      return r;
    }));
  }
  /**
   * Applies {@code examples/analysis/analysistemplate.yaml} as it is but for its namespace and the
   * operator's address ({@code operator}, {@code host:port}); returns its name.
   */
  private String applyAnalysisTemplate(String operator) {
    GenericKubernetesResource template = load("examples/analysis/analysistemplate.yaml");
    template.getMetadata().setNamespace(namespace);
    String manifest = Serialization.asJson(template).replace(
        "http://warmgate-operator-metrics.warmgate.svc:8080/gate/shop/",
        "http://" + operator + "/gate/" + namespace + "/");
    client.resource(Serialization.unmarshal(manifest, GenericKubernetesResource.class))
        .serverSideApply();
    return template.getMetadata().getName();
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

  /** Events with {@code reason} about the Rollout, as {@link #workloadEvents}. */
  List<Event> rolloutEvents(String reason, Instant since) {
    return workloadEvents(reason, since);
  }

  Map<String, Object> rolloutStatus() {
    GenericKubernetesResource r = rollout().get();
    Object status = r == null ? null : r.getAdditionalProperties().get("status");
    return status == null ? Map.of() : map(status);
  }

  /** Healthy on its current revision, past the last step. */
  @Override
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
}
