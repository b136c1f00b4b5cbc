package io.warmgate.agent;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * The system of record a {@link TieredCache} loads from when neither tier holds an id.
 *
 * <p>One call serves a whole batch: {@link TieredCache#getAll} passes all of its misses at once, so
 * an implementation should read them with one query (for example {@code WHERE id IN UNNEST(@ids)}).
 *
 * <p>Contract:
 * <ul>
 *   <li>{@code ids} is non-empty, holds no null, empty or duplicate id, and must not be modified;
 *   <li>an id that is absent from the returned map (or mapped to null) does not exist: the cache
 *       stores a <em>not-found</em> entry for it with the same TTLs as a value;
 *   <li>a thrown exception is an <em>origin error</em> for every id of the batch: it is never
 *       cached, and callers get a stale value (if one is young enough) or a
 *       {@link CacheLoadException};
 *   <li>keys that were not asked for are ignored; the returned map is not retained or modified.
 * </ul>
 * Calls may come from several threads at once, each with a different batch.
 *
 * <p>An origin with a deadline of its own says so in {@link #timeout()}: the cache keeps another
 * pod's read of an id alive, and a lookup waits for it, as long as one call may take.
 *
 * @param <V> the value type
 */
@FunctionalInterface
public interface Origin<V> {

  /**
   * Loads the values of {@code ids}.
   *
   * @param ids the ids to load, never empty
   * @return the values found, keyed by id; a missing id means not found
   * @throws Exception if the origin could not answer (none of the ids is then cached)
   */
  Map<String, V> loadAll(Collection<String> ids) throws Exception;

  /**
   * The bound of one {@link #loadAll} call after which it fails (a database client's deadline),
   * positive; {@value #DEFAULT_TIMEOUT_SECONDS} s unless the origin declares its own, as
   * {@code SpannerOrigin} does. The cache does not cut a call short; it uses this bound for how
   * long it keeps a pod's fill lease alive while that pod reads, and as the default of
   * {@code fillWait}: a lookup never waits on another pod's read longer than its own read could
   * take.
   */
  default Duration timeout() {
    return Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS);
  }

  /** {@link #timeout()} of an origin that declares none: SpannerOrigin's default deadline. */
  long DEFAULT_TIMEOUT_SECONDS = 5;
}
