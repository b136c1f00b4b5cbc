package io.warmgate.agent;

import io.warmgate.agent.preload.WarmableCache;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;

/**
 * A {@link TieredCache} as the preload worker and the fleet services see it, so that the API type
 * need not extend their interface.
 */
final class WarmableTieredCache implements WarmableCache {

  private final TieredCache<?> cache;

  WarmableTieredCache(TieredCache<?> cache) {
    this.cache = Objects.requireNonNull(cache, "cache");
  }

  @Override
  public int fillL2(Collection<String> ids) {
    return cache.fillL2(ids);
  }

  @Override
  public int fillL2(Collection<String> ids, Duration minTtlLeft) {
    return cache.fillL2(ids, minTtlLeft);
  }

  @Override
  public int maxIdBytes() {
    return cache.maxIdBytes();
  }

  @Override
  public String name() {
    return cache.name();
  }

  @Override
  public String schemaHash() {
    return cache.schemaHash();
  }

  @Override
  public String toString() {
    return cache.toString();
  }
}
