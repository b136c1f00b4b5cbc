package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.warmgate.operator.revision.NewPods;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A null-safe view of the parts of an Argo Rollouts {@code Rollout} the gate reads: its canary
 * steps and the status fields the Argo controller writes ({@code currentPodHash},
 * {@code stableRS}, {@code currentStepIndex}, {@code pauseConditions}, {@code abort}).
 *
 * <p>Missing or malformed fields read as absent (null, empty, false), never as an exception; the
 * gate treats absent as "not held", so a rollout it cannot read is left alone.
 *
 * @param namespace the Rollout's namespace
 * @param name the Rollout's name
 * @param uid the Rollout's uid, for Events
 * @param resourceVersion the version this view was read from
 * @param steps {@code spec.strategy.canary.steps}; empty for blue-green or no steps
 * @param currentPodHash {@code status.currentPodHash}, the canary's pod-template hash, or null
 * @param stableRs {@code status.stableRS}, the stable pod-template hash, or null
 * @param currentStepIndex {@code status.currentStepIndex}, or null
 * @param pauseConditions {@code status.pauseConditions}, empty when none
 * @param abort {@code status.abort}
 */
public record RolloutView(String namespace, String name, String uid, String resourceVersion,
    List<Step> steps, String currentPodHash, String stableRs, Integer currentStepIndex,
    List<PauseCondition> pauseConditions, boolean abort) {

  /** The pause reason Argo Rollouts sets when a canary reaches a {@code pause} step. */
  public static final String CANARY_PAUSE_STEP = "CanaryPauseStep";

  private static final ObjectMapper JSON = new ObjectMapper();

  public RolloutView {
    steps = List.copyOf(steps);
    pauseConditions = List.copyOf(pauseConditions);
  }

  /**
   * One canary step.
   *
   * @param pause whether it is a {@code pause} step
   * @param indefinite whether that pause has no duration ({@code pause: {}})
   */
  public record Step(boolean pause, boolean indefinite) {}

  /**
   * One entry of {@code status.pauseConditions}.
   *
   * @param reason such as {@code CanaryPauseStep}
   * @param startTime when the pause began, or null if unreadable
   */
  public record PauseCondition(String reason, Instant startTime) {}

  /** Reads {@code rollout}'s spec and status. */
  public static RolloutView of(GenericKubernetesResource rollout) {
    JsonNode spec = JSON.valueToTree(rollout.getAdditionalProperties().get("spec"));
    JsonNode status = JSON.valueToTree(rollout.getAdditionalProperties().get("status"));
    List<Step> steps = new ArrayList<>();
    for (JsonNode step : spec.path("strategy").path("canary").path("steps")) {
      JsonNode pause = step.get("pause");
      boolean isPause = pause != null && pause.isObject();
      steps.add(new Step(isPause, isPause && isIndefinite(pause.get("duration"))));
    }
    List<PauseCondition> pauses = new ArrayList<>();
    for (JsonNode condition : status.path("pauseConditions")) {
      pauses.add(new PauseCondition(text(condition.get("reason")),
          instant(text(condition.get("startTime")))));
    }
    JsonNode index = status.get("currentStepIndex");
    return new RolloutView(rollout.getMetadata().getNamespace(), rollout.getMetadata().getName(),
        rollout.getMetadata().getUid(), rollout.getMetadata().getResourceVersion(), steps,
        text(status.get("currentPodHash")), text(status.get("stableRS")),
        index != null && index.canConvertToInt() && index.isIntegralNumber() ? index.intValue()
            : null,
        pauses, status.path("abort").asBoolean(false));
  }

  /**
   * {@code pods} seen as a Rollout without steps, pause or abort: the new pods are the canary,
   * the pods they replace the stable ones. The view a gate that is not a pause step decides on
   * ({@link GateDecision#warmth}).
   */
  public static RolloutView ofNewPods(NewPods pods, String name) {
    return new RolloutView(pods.namespace(), name, null, null, List.of(), pods.newPodHash(),
        pods.stablePodHash(), null, List.of(), false);
  }

  /** Whether a canary differs from stable: both hashes known and unequal. */
  public boolean canaryInProgress() {
    return currentPodHash != null && stableRs != null && !currentPodHash.equals(stableRs);
  }

  /**
   * The start of the {@code CanaryPauseStep} pause condition; empty when there is none or its
   * {@code startTime} is unreadable (the gate then does not act: an unknown state holds).
   */
  public Optional<Instant> canaryPauseStart() {
    return pauseConditions.stream().filter(p -> CANARY_PAUSE_STEP.equals(p.reason()))
        .map(PauseCondition::startTime).filter(t -> t != null).findFirst();
  }

  /**
   * The reasons of the pause conditions other than {@code CanaryPauseStep}, such as
   * {@code InconclusiveAnalysisRun}; a condition without a reason counts as {@code "unknown"}.
   */
  public List<String> otherPauseReasons() {
    return pauseConditions.stream().map(PauseCondition::reason)
        .filter(reason -> !CANARY_PAUSE_STEP.equals(reason))
        .map(reason -> reason == null ? "unknown" : reason).distinct().toList();
  }

  /** {@code namespace/name}. */
  public String id() {
    return namespace + "/" + name;
  }

  private static boolean isIndefinite(JsonNode duration) {
    if (duration == null || duration.isNull()) {
      return true;
    }
    return duration.isTextual() && duration.asText().isEmpty();
  }

  private static String text(JsonNode node) {
    return node == null || !node.isTextual() || node.asText().isEmpty() ? null : node.asText();
  }

  private static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
