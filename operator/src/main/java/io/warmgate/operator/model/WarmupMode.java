package io.warmgate.operator.model;

/** How a canary's L2 namespace is filled before the rollout continues. */
public enum WarmupMode {
  /** By the canary's own traffic only. */
  Organic,
  /** By one canary agent loading the hot set from the origin at a capped rate, plus traffic. */
  Preload
}
