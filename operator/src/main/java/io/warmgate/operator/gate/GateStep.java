package io.warmgate.operator.gate;

import java.util.List;

/**
 * Finds the canary step at which the gate holds a rollout: {@code spec.warmup.gateStep} when set
 * (it must be an indefinite {@code pause: {}} step), else the first indefinite pause step.
 *
 * @param index the step index, or -1 when there is none
 * @param problem why there is none, naming the fix; null when {@code index} is valid
 */
public record GateStep(int index, String problem) {

  /** Resolves the gate step of {@code steps}; {@code configured} may be null. */
  public static GateStep resolve(List<RolloutView.Step> steps, Integer configured) {
    if (configured != null) {
      if (configured < 0 || configured >= steps.size()) {
        return new GateStep(-1, "spec.warmup.gateStep " + configured + " is outside the "
            + "Rollout's " + steps.size() + " canary steps; set it to the index of a pause step");
      }
      if (!steps.get(configured).pause()) {
        return new GateStep(-1, "spec.warmup.gateStep " + configured + " is not a pause step; "
            + "set it to the index of a pause step, or add one there");
      }
      if (!steps.get(configured).indefinite()) {
        return new GateStep(-1, "spec.warmup.gateStep " + configured + " is a pause with a "
            + "duration, which Argo Rollouts ends by itself whatever the gate says; make it "
            + "'- pause: {}'");
      }
      return new GateStep(configured, null);
    }
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).indefinite()) {
        return new GateStep(i, null);
      }
    }
    return new GateStep(-1, "the Rollout has no indefinite pause step; add '- pause: {}' to "
        + "spec.strategy.canary.steps after the first canary pod is up, or set "
        + "spec.warmup.gateStep");
  }

  /** Whether a gate step was found. */
  public boolean found() {
    return index >= 0;
  }
}
