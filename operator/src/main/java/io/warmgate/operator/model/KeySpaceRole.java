package io.warmgate.operator.model;

/** Which pods of the target read a key space (schema hash). */
public enum KeySpaceRole {
  /** The stable pods. */
  Stable,
  /** The canary pods of a rollout in progress. */
  Canary
}
