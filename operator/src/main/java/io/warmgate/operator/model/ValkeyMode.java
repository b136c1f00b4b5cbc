package io.warmgate.operator.model;

/** How the Valkey servers of a policy are organised. */
public enum ValkeyMode {
  /** One server holds every key; {@code addresses} lists it alone. */
  Standalone,
  /**
   * A Valkey cluster (Memorystore for Valkey, ElastiCache, a self-managed cluster):
   * {@code addresses} lists some of its nodes, through which the others are found.
   */
  Cluster;

  /** The value the agent reads from {@code WARMGATE_VALKEY_MODE}. */
  public String agentValue() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
