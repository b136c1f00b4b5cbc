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
 * <p>Threads. A lookup whose value is in L1 is answered on the calling thread, and the future of
 * {@link #getAsync} or {@link #getAllAsync} is then already complete. Otherwise no caller's
 * future is completed, and no L2 payload decoded, on the L2 client's I/O threads: an L2 reply is
 * handed over first to the cache's completion executor ({@link WarmGate#completionExecutor}), and
 * an origin load completes on the loader executor ({@link WarmGate#executor}). A synchronous
 * {@link #get} or {@link #getAll} decodes its own L2 reply on the calling thread, and a future
 * that shares its load may complete there too; so may an asynchronous lookup whose reply was
 * already handed over before the lookup got to wait for it. So callbacks on these futures may call any method
 * of the cache, blocking ones included; a callback that blocks for long holds a thread of the
 * executor it runs on, and ought to run on an executor of its own ({@code thenApplyAsync}).
 *
 * <p>An id must be non-null, non-empty, well-formed Unicode and at most {@link #maxIdBytes} bytes
 * long in UTF-8 (default {@value #DEFAULT_MAX_ID_BYTES}), else {@link IllegalArgumentException};
 * any such string is valid, including spaces, {@code :} and control characters.
 *
 * <p>L2 bytes per unknown id. One lookup of an id the origin does not know creates at most two
 * L2 keys in a pod: the negative entry (key {@code wg:<cache>:<hash>:<escaped id>}, value a 13 + h
 * byte envelope) and the fill lease (key {@code {<value key>}:fill}, value the token
 * {@code <pod name>/<uuid>}); a later lookup of it creates at most the refresh lock, the size of
 * the lease. The escaped id takes at most 3 bytes per byte of UTF-8, so one lookup writes at most
 * {@code 6 × maxIdBytes + 2c + 3h + p + 67} bytes of keys and values, for a cache name of c
 * chars, a schema hash of h = 12 and a pod name of p: 3,364 bytes with the default
 * {@value #DEFAULT_MAX_ID_BYTES}-byte limit, 63-char cache and pod names. The lease is deleted
 * when the load ends and the entry expires after the negative TTL. With fleet services, the hot-key
 * sampler may also add an id of at most 512 bytes to the cache's hot set.
 *
 * @param <V> the value type
 */
public interface TieredCache<V> extends AutoCloseable {

  /** The default of {@link WarmGate#maxIdBytes}: the longest id accepted, in UTF-8 bytes. */
  int DEFAULT_MAX_ID_BYTES = 512;

  /** The largest {@link WarmGate#maxIdBytes} that may be set. */
  int MAX_ID_BYTES_LIMIT = 65_536;

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
   * <p>A fill reads each id from the origin at most once together with the lookups that miss it
   * meanwhile: an id this pod is loading for a lookup is left to that load; lookups of this pod
   * that miss an id being filled wait for the fill; and the fill takes each id's fill lease, so
   * it waits (up to the lock TTL) for a lookup of another pod that holds one instead of reading
   * the id a second time.
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

  /**
   * {@link #invalidateAll} of one id.
   *
   * @throws IllegalArgumentException if {@code id} is invalid
   * @throws IllegalStateException if Valkey did not complete the invalidation (call again: it is
   *     idempotent) or the cache is closed
   */
  void invalidate(String id);

  /**
   * Drops {@code ids} from every tier after their origin rows changed, so that the next lookup of
   * each reads the origin again. With fleet services (the default with a Valkey address), the
   * values are deleted in every live schema key space of the cache (the schema hashes of the
   * agents in its registry: old and new versions during a release), and every pod drops the ids
   * from its L1 when it reads them from the cache's invalidation stream, within a round trip
   * while it is connected to Valkey. A load that read the origin before the change and finishes
   * after this call could write the old value back; the invalidation is therefore repeated once,
   * one {@code lockTtl} later. Without fleet services only this pod's L1 and this key space's L2
   * are cleared. See {@code docs/valkey-layout.md} for the stream and the bounds.
   *
   * @throws IllegalArgumentException if {@code ids} is null or holds an invalid id
   * @throws IllegalStateException if Valkey did not complete the invalidation (call again: it is
   *     idempotent) or the cache is closed
   */
  void invalidateAll(Collection<String> ids);

  /** Returns the longest id this cache accepts, in UTF-8 bytes. */
  int maxIdBytes();

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
