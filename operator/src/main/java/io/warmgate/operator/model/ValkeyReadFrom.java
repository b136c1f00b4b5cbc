package io.warmgate.operator.model;

/** Where the agents' lookups read values from. */
public enum ValkeyReadFrom {
  /** The primary of each key's slot: a lookup sees every write that completed before it. */
  Primary,
  /**
   * A replica of the key's slot while one is up, else its primary (cluster only). Replication is
   * asynchronous: a replica may miss a value just written, and that lookup reads the origin.
   */
  ReplicaPreferred;

  /** The value the agent reads from {@code WARMGATE_VALKEY_READ_FROM}. */
  public String agentValue() {
    return this == Primary ? "primary" : "replica-preferred";
  }
}
