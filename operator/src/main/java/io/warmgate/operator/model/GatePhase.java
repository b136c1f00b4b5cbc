package io.warmgate.operator.model;

/** Where the rollout gate stands for the current canary. */
public enum GatePhase {
  /** No canary is in progress. */
  Idle,
  /** A canary exists; the gate waits for it to reach its gate step and register its agents. */
  Waiting,
  /** The rollout is held at the gate step while the canary's namespace fills. */
  Warming,
  /** The canary was warm and the pause was released. */
  Promoted,
  /** The canary shares the stable schema hash and was released at once. */
  Skipped,
  /** The canary did not get warm within maxWait; onTimeout was Hold. */
  TimedOut,
  /** The rollout was aborted, by onTimeout=Abort or by someone else. */
  Aborted
}
