package io.warmgate.agent.preload;

import java.time.Duration;
import java.util.Collection;

/**
 * What the preload worker and the fleet services use of a cache: its L2 key space (name and
 * schema hash), the longest id it accepts, and filling L2 ahead of traffic. The agent adapts the
 * {@code io.warmgate.agent.TieredCache} it builds to one; the methods' contracts are those of
 * {@code TieredCache}.
 */
public interface WarmableCache {

  /**
   * Makes L2 hold an entry for each of {@code ids}, loading those it lacks from the origin.
   *
   * @return how many distinct ids L2 held or was written with
   * @throws IllegalStateException if the cache has no L2 or is closed
   * @throws RuntimeException if the origin failed (the cache's {@code CacheLoadException}, whose
   *     message says which id and why)
   */
  int fillL2(Collection<String> ids);

  /**
   * {@link #fillL2(Collection)}, where an entry with less than {@code minTtlLeft} of its L2 TTL
   * left counts as lacking.
   */
  int fillL2(Collection<String> ids, Duration minTtlLeft);

  /** Returns the longest id the cache accepts, in UTF-8 bytes. */
  int maxIdBytes();

  /** Returns the cache's name, the {@code <cache>} part of its L2 keys. */
  String name();

  /** Returns the schema hash of the value type: the L2 key space the cache reads and writes. */
  String schemaHash();
}
