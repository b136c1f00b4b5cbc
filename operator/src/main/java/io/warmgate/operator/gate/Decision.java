package io.warmgate.operator.gate;

import io.warmgate.operator.model.GatePhase;

/**
 * What the gate does about one rollout in one reconciliation, as {@link GateDecision} decides it.
 * Every variant carries the gate phase, a CamelCase reason and a message for status and Events.
 */
public sealed interface Decision {

  GatePhase phase();

  String reason();

  String message();

  /** The gate does not hold this rollout and does nothing to it (no canary, not at the gate). */
  record Pass(GatePhase phase, String reason, String message) implements Decision {}

  /** The rollout is held at the gate step and stays paused. */
  record Hold(GatePhase phase, String reason, String message) implements Decision {}

  /** Release the pause: remove the {@code CanaryPauseStep} pause condition, nothing else. */
  record Release(GatePhase phase, String reason, String message) implements Decision {}

  /** Abort the rollout: merge patch {@code {"status":{"abort":true}}}. */
  record Abort(String reason, String message) implements Decision {
    @Override
    public GatePhase phase() {
      return GatePhase.TimedOut;
    }
  }

  /**
   * Open the Preload warm job of {@code schemaHash}, then decide again; the rollout stays held.
   *
   * @param target how many of the hottest ids to snapshot into the job
   * @param rate most ids per second the preloading agent may load
   */
  record OpenWarmJob(String schemaHash, int target, int rate) implements Decision {
    @Override
    public GatePhase phase() {
      return GatePhase.Warming;
    }

    @Override
    public String reason() {
      return GateReasons.WARMING;
    }

    @Override
    public String message() {
      return "opening the warm job for schema hash " + schemaHash;
    }
  }
}
