package io.warmgate.operator.model;

/** What the gate does when a canary is not warm after {@code warmup.maxWait}. */
public enum TimeoutAction {
  /** Keep the rollout paused until someone promotes or aborts it. */
  Hold,
  /** Release the pause anyway. */
  Promote,
  /** Abort the rollout. */
  Abort
}
