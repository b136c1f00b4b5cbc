package io.warmgate.gateway.it;

/** The two shapes of Valkey a gateway IT runs on: {@code @ParameterizedClass @EnumSource(ValkeyMode.class)}. */
public enum ValkeyMode {
  /** One redis-server. */
  STANDALONE,
  /** A Redis cluster of three primaries and three replicas. */
  CLUSTER
}
