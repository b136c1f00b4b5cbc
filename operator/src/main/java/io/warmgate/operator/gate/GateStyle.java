package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * How a Rollout's new pods are gated: at an indefinite {@code pause: {}} step the operator
 * releases ({@link #PAUSE}), or by an Argo analysis that asks the operator's decision endpoint
 * ({@link #ANALYSIS}).
 *
 * <p>The pause style wins whenever the Rollout has a gate step. Without one, a Rollout that names
 * an analysis (a canary step's {@code analysis}, or a blue-green {@code prePromotionAnalysis})
 * is in the analysis style; with neither, nothing can hold it ({@link #NONE}).
 */
public enum GateStyle {
  /** The operator holds the canary at its gate step and releases the pause. */
  PAUSE,
  /** An Argo analysis asks the decision endpoint; the operator patches nothing. */
  ANALYSIS,
  /** No gate step and no analysis: the Rollout cannot be held. */
  NONE;

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The style of {@code rollout} whose gate step resolved to {@code step}; a gate step set in
   * the policy ({@code gateStepSet}) asks for the pause style, so a wrong one is never taken for
   * the analysis style.
   */
  public static GateStyle of(GenericKubernetesResource rollout, GateStep step,
      boolean gateStepSet) {
    if (step.found()) {
      return PAUSE;
    }
    return !gateStepSet && namesAnalysis(rollout) ? ANALYSIS : NONE;
  }

  /**
   * The problem of a Rollout in {@link #NONE}: {@code problem} (why there is no gate step) and
   * the other way to gate it.
   */
  public static String noGate(GateStep step) {
    return step.problem() + "; or gate it with an Argo analysis that asks the operator's "
        + "decision endpoint (a canary step '- analysis: {templates: [...]}' or blue-green "
        + "prePromotionAnalysis; see operator/README.md, analysis style)";
  }

  /** Whether {@code rollout}'s strategy names an analysis the gate can answer. */
  static boolean namesAnalysis(GenericKubernetesResource rollout) {
    JsonNode strategy = JSON.valueToTree(rollout.getAdditionalProperties().get("spec"))
        .path("strategy");
    if (strategy.path("blueGreen").path("prePromotionAnalysis").isObject()) {
      return true;
    }
    for (JsonNode step : strategy.path("canary").path("steps")) {
      if (step.path("analysis").isObject()) {
        return true;
      }
    }
    return false;
  }
}
