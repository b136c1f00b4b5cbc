package io.warmgate.agent;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A read-through cache of values of one type, in three tiers: an in-process L1, a shared L2
 * (Valkey/Redis) and the {@link Origin}. Instances are created by {@link WarmGate} and are safe for
 * concurrent use.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>At most one load per id is in flight in one instance; concurrent callers share it, and a
 *       caller that gives up (cancels or times out its future) never cancels the shared load.
 *   <li>A lookup never fails because L2 failed: L2 errors, timeouts and corrupt entries fall
 *       back to the origin.
 *   <li>No value is returned that left the origin longer than {@code maxStaleness} ago, except
 *       when the origin fails and the value is younger than {@code staleIfError}.
 *   <li>While the origin's circuit breaker is open (after recent origin failures), the origin is
 *       not called: such a stale value is served at once, other ids fail at once.
 *   <li>Ids that the origin does not know are cached as not found (with the same TTLs) and
 *       returned as {@code null}, or left out of {@link #getAll}'s map.
 * </ul>
 *
 * <p>An id must be non-null and non-empty (else {@link IllegalArgumentException}); any other
 * string up to {@value #MAX_ID_LENGTH} chars is valid, including unicode, spaces and {@code :}.
 *
 * @param <V> the value type
 */
public interface TieredCache<V> extends AutoCloseable {

  /** The longest id accepted, in chars. */
  int MAX_ID_LENGTH = 65_536;

  /**
   * Returns the value of {@code id}, loading it if no tier holds it.
   *
   * @return the value, or {@code null} if the origin has no such id
   * @throws IllegalArgumentException if {@code id} is null, empty or too long
   * @throws CacheLoadException if the origin failed and no stale value could be served
   * @throws IllegalStateException if the cache is closed
   */
  V get(String id);

  /**
   * Returns the values of {@code ids}; the misses of all tiers are loaded with one origin call.
   *
   * @return an unmodifiable map from each found id to its value; ids the origin does not know are
   *     absent
   * @throws IllegalArgumentException if {@code ids} is null or holds an invalid id
   * @throws CacheLoadException if the origin failed for an id and no stale value could be served
   * @throws IllegalStateException if the cache is closed
   */
  Map<String, V> getAll(Iterable<String> ids);

  /**
   * Asynchronous {@link #get}. The returned future is the caller's own: cancelling it or letting
   * it time out does not affect the shared load. Invalid ids throw at once rather than failing
   * the future.
   */
  CompletableFuture<V> getAsync(String id);

  /** Asynchronous {@link #getAll}; the returned future is the caller's own, as in {@link #getAsync}. */
  CompletableFuture<Map<String, V>> getAllAsync(Iterable<String> ids);

  /**
   * Makes L2 hold an entry for each of {@code ids}, whatever L1 holds: the ids L2 lacks (or holds
   * unreadable) are loaded with one origin call and written to L2, and the writes are awaited.
   * If L2 cannot be read, the origin is not called and 0 is returned.
   * This warms a key space ahead of traffic (the preload worker); lookups never need it.
   *
   * @return how many distinct ids L2 held or was written with; a write that failed or timed out
   *     is not counted, so the caller can retry
   * @throws IllegalArgumentException if {@code ids} holds an invalid id
   * @throws IllegalStateException if the cache has no L2 or is closed
   * @throws CacheLoadException if the origin failed
   */
  int fillL2(Collection<String> ids);

  /**
   * {@link #fillL2(Collection)}, where an entry with less than {@code minTtlLeft} of its L2 TTL
   * left counts as lacking: it is reloaded and written again. This keeps a key space warm.
   *
   * @throws IllegalArgumentException if {@code ids} holds an invalid id or {@code minTtlLeft} is
   *     negative
   */
  int fillL2(Collection<String> ids, Duration minTtlLeft);

  /** Returns this cache's name, the {@code <cache>} part of its L2 keys. */
  String name();

  /**
   * Returns the schema hash of the value type: the L2 key space this instance reads and writes.
   * Instances whose value types serialize differently have different hashes.
   */
  String schemaHash();

  /**
   * Closes the L2 connection and the loader threads this cache created. Loads in flight may
   * complete or fail; later calls throw {@link IllegalStateException}. Idempotent.
   */
  @Override
  void close();
}
