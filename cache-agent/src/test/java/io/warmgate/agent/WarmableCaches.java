package io.warmgate.agent;

import io.warmgate.agent.preload.WarmableCache;

/** A cache as the preload worker and the fleet services see it, for tests that start them. */
public final class WarmableCaches {

  private WarmableCaches() {}

  /** {@code cache} adapted as {@code WarmGate} adapts the caches it builds. */
  public static WarmableCache of(TieredCache<?> cache) {
    return new WarmableTieredCache(cache);
  }
}
