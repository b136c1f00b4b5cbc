package io.warmgate.bench.operator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.warmgate.testing.ArgoRollouts;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays the Argo Rollouts controller: creates Rollouts whose second canary step is the gate's
 * {@code pause: {}} and writes their status through the status subresource, as the controller
 * does when a canary reaches a step.
 */
public final class ArgoRolloutPart {

  public static final String STABLE_POD_HASH = "5c6d7e8f9";
  public static final String CANARY_POD_HASH = "7d9f8b6c5";
  /** Index of the {@code pause: {}} step in {@link #create}'s steps. */
  static final int GATE_STEP = 1;

  private final KubernetesClient client;

  public ArgoRolloutPart(KubernetesClient client) {
    this.client = client;
  }

  public void create(String namespace, String name, int replicas) {
    client.resource(new GenericKubernetesResourceBuilder()
        .withApiVersion(ArgoRollouts.API_VERSION).withKind("Rollout")
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "replicas", replicas,
            "selector", Map.of("matchLabels", Map.of("app", name)),
            "template", Map.of(
                "metadata", Map.of("labels", Map.of("app", name)),
                "spec", Map.of("containers", List.of(
                    Map.of("name", "app", "image", "registry.invalid/app:1")))),
            "strategy", Map.of("canary", Map.of("steps", List.of(
                Map.of("setWeight", 20), Map.of("pause", Map.of()), Map.of("setWeight", 50))))))
        .build()).create();
  }

  /** Every pod runs the stable ReplicaSet: no release under way. */
  public void allStable(String namespace, String name) {
    setStatus(namespace, name, Map.of("currentPodHash", STABLE_POD_HASH,
        "stableRS", STABLE_POD_HASH, "currentStepIndex", 3));
  }

  /** The canary runs its first step (weight 20 %), before the gate. */
  void canaryBeforeGate(String namespace, String name) {
    setStatus(namespace, name, Map.of("currentPodHash", CANARY_POD_HASH,
        "stableRS", STABLE_POD_HASH, "currentStepIndex", 0));
  }

  /** The canary reached the gate step: Argo pauses it there with a CanaryPauseStep condition. */
  public void canaryAtGate(String namespace, String name, Instant pausedAt) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("currentPodHash", CANARY_POD_HASH);
    status.put("stableRS", STABLE_POD_HASH);
    status.put("currentStepIndex", GATE_STEP);
    status.put("controllerPause", true);
    status.put("pauseConditions", List.of(Map.of("reason", "CanaryPauseStep",
        "startTime", pausedAt.truncatedTo(ChronoUnit.SECONDS).toString())));
    setStatus(namespace, name, status);
  }

  public void delete(String namespace, String name) {
    rollout(namespace, name).delete();
  }

  Resource<GenericKubernetesResource> rollout(String namespace, String name) {
    return client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(namespace)
        .withName(name);
  }

  /** Whether the gate released the rollout: at the gate step with no pause condition left. */
  @SuppressWarnings("unchecked")
  static boolean releasedAtGate(GenericKubernetesResource rollout) {
    if (rollout == null || !(rollout.getAdditionalProperties().get("status") instanceof Map<?, ?> s)) {
      return false;
    }
    Map<String, Object> status = (Map<String, Object>) s;
    Object pauses = status.get("pauseConditions");
    return status.get("currentStepIndex") instanceof Number step && step.intValue() == GATE_STEP
        && (pauses == null || (pauses instanceof List<?> list && list.isEmpty()))
        && !Boolean.TRUE.equals(status.get("abort"));
  }

  private void setStatus(String namespace, String name, Map<String, Object> status) {
    rollout(namespace, name).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE),
        Serialization.asJson(Map.of("status", status)));
  }
}
