package io.warmgate.operator.gate;

import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.status.Conditions;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a policy's status records about the Rollout's current canary: the gate's memory, read
 * back on every pass so that a restarted or newly elected operator continues where the last one
 * stopped.
 */
final class RecordedGate {

  /** Phases in which the gate is done with a canary; an EnumSet, so contains(null) is false. */
  static final Set<GatePhase> FINISHED =
      EnumSet.of(GatePhase.Promoted, GatePhase.Skipped, GatePhase.TimedOut);

  private RecordedGate() {}

  /** The phase {@code status} records for the Rollout's current canary, or null. */
  static GatePhase previousPhase(CachePolicyStatus status, RolloutView view) {
    GateStatus gate = status.getGate();
    return gate != null && view.currentPodHash() != null
        && view.currentPodHash().equals(gate.getCanaryPodHash()) ? gate.getPhase() : null;
  }

  /**
   * Whether {@code status} records the gate as holding the Rollout's current canary
   * ({@code RolloutHeld=True} with a gate phase for it).
   */
  static boolean holding(CachePolicyStatus status, RolloutView view) {
    return previousPhase(status, view) != null
        && Conditions.isTrue(status, Conditions.ROLLOUT_HELD);
  }

  /**
   * Whether {@code status} records the gate as done with the Rollout's current canary: a finished
   * phase and no hold (a {@code TimedOut} canary held by {@code onTimeout: Hold} is not done).
   */
  static boolean doneWith(CachePolicyStatus status, RolloutView view) {
    return FINISHED.contains(previousPhase(status, view)) && !holding(status, view);
  }
}
