package io.warmgate.operator.model;

/** Which pods of the target read a schema-hash namespace. */
public enum NamespaceRole {
  /** The stable pods. */
  Stable,
  /** The canary pods of a rollout in progress. */
  Canary
}
