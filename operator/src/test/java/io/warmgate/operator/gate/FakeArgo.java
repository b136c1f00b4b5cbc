package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * Plays the Argo Rollouts controller for one Rollout: writes its status through the status
 * subresource, as the controller does, and reads it back.
 */
public final class FakeArgo {

  public static final String STABLE = "5c6d7e8f9";
  public static final String CANARY = "7d9f8b6c5";

  private final KubernetesClient client;
  private final String namespace;
  private final String name;

  public FakeArgo(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  /** Puts the Rollout where the controller holds a canary at the pause step (index 1). */
  public void holdAtGate(Instant pausedAt) {
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("currentPodHash", CANARY);
    status.put("stableRS", STABLE);
    status.put("currentStepIndex", 1);
    status.put("controllerPause", true);
    status.put("pauseConditions", List.of(Map.of("reason", "CanaryPauseStep",
        "startTime", pausedAt.truncatedTo(ChronoUnit.SECONDS).toString())));
    setStatus(status);
  }

  void setStatus(Map<String, Object> status) {
    client.genericKubernetesResources(ArgoRollouts.ROLLOUTS)
        .inNamespace(namespace).withName(name).subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("status", status)));
  }

  GenericKubernetesResource rollout() {
    return client.genericKubernetesResources(ArgoRollouts.ROLLOUTS)
        .inNamespace(namespace).withName(name).get();
  }

  Map<String, Object> status() {
    return statusOf(rollout());
  }

  /** The status of {@code rollout}; empty when it has none. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> statusOf(GenericKubernetesResource rollout) {
    Object status = rollout.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }

  /** Whether {@code rollout} has a non-empty {@code status.pauseConditions}. */
  static boolean paused(GenericKubernetesResource rollout) {
    return statusOf(rollout).get("pauseConditions") instanceof List<?> conditions
        && !conditions.isEmpty();
  }
}
