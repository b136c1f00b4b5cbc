package io.warmgate.agent;

/** The two shapes of L2 an IT runs on: {@code @ParameterizedClass @EnumSource(L2Mode.class)}. */
public enum L2Mode {
  /** One redis-server. */
  STANDALONE,
  /** A Redis cluster of three primaries and three replicas. */
  CLUSTER
}
