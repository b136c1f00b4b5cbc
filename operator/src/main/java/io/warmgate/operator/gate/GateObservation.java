package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * What one pass of the gate observed, for the decision, the actions and the status to share.
 *
 * @param recorded the policy's status, read again from the API server when the informer's copy
 *     may not show the gate's own last release or abort yet
 * @param inputs what {@link GateDecision} decides from
 * @param keySpaces the live key spaces as Valkey reports them; null when Valkey could not be
 *     read, so the recorded ones stay
 * @param valkey the policy's Valkey connection, or null when Valkey is not usable
 */
record GateObservation(CachePolicy policy, GenericKubernetesResource rollout,
    CachePolicyStatus recorded, GateInputs inputs, List<KeySpace> keySpaces,
    ValkeyCommands valkey, ControlKeys keys) {

  /**
   * One live key space: the agents that read it, the distinct keys written to it and its hit
   * ratio over the window (null when no request was counted).
   */
  record KeySpace(String schemaHash, List<Agent> agents, long keys, Double hitRatio) {}

  RolloutView view() {
    return inputs.rollout();
  }

  /** The gate status recorded by the last pass, whichever canary it speaks about. */
  GateStatus before() {
    return recorded.getGate();
  }

  /** Whether the recorded gate status speaks about the Rollout's current canary. */
  boolean sameCanary() {
    return inputs.previous() != null;
  }

  /**
   * Whether {@code decision} only repeats the release or abort recorded for this same pause: the
   * gate acts again (the Rollout may not have moved yet) but records no new Event or time.
   */
  boolean repeats(Decision decision) {
    GateStatus before = before();
    return sameCanary() && before.getReleasedAt() != null
        && decision.phase() == inputs.previous()
        && view().canaryPauseStart().map(start -> !Instant.parse(before.getReleasedAt())
            .isBefore(start.truncatedTo(ChronoUnit.SECONDS))).orElse(false);
  }

  /** This observation with {@code observed} as what Valkey says. */
  GateObservation withObserved(GateInputs.Observed observed) {
    return new GateObservation(policy, rollout, recorded, inputs.withObserved(observed),
        keySpaces, valkey, keys);
  }
}
