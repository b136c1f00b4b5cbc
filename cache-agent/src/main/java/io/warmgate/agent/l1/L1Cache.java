package io.warmgate.agent.l1;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.time.InstantSource;

/**
 * The in-process tier. An entry is fresh until {@code min(now + ttl, fetchedAt + maxStaleness)}
 * ({@code ttl} is the negative TTL for not-found entries) and is kept, no longer fresh, until
 * {@code fetchedAt + staleIfError} if that is later, so a stale value can be served when the
 * origin fails. Bounded by entry count. Thread-safe.
 *
 * @param <V> the value type
 */
public final class L1Cache<V> {

  private final Cache<String, L1Entry<V>> cache;
  private final InstantSource clock;
  private final Ticker ticker;
  private final long ttlNanos;
  private final long negativeTtlNanos;
  private final long maxStalenessMillis;
  private final long staleIfErrorMillis;

  /**
   * Creates an L1 tier; {@code ticker} must advance with {@code clock}.
   *
   * @param negativeTtl the TTL of not-found entries, usually the same as {@code ttl}
   */
  public L1Cache(long maxSize, Duration ttl, Duration negativeTtl, Duration maxStaleness,
      Duration staleIfError, InstantSource clock, Ticker ticker) {
    this.clock = clock;
    this.ticker = ticker;
    this.ttlNanos = ttl.toNanos();
    this.negativeTtlNanos = negativeTtl.toNanos();
    this.maxStalenessMillis = maxStaleness.toMillis();
    this.staleIfErrorMillis = staleIfError.toMillis();
    this.cache = Caffeine.newBuilder()
        .maximumSize(maxSize)
        .ticker(ticker)
        .expireAfter(new Expiry<String, L1Entry<V>>() {
          @Override
          public long expireAfterCreate(String key, L1Entry<V> entry, long now) {
            return Math.max(0, entry.keepUntilNanos() - now);
          }

          @Override
          public long expireAfterUpdate(String key, L1Entry<V> entry, long now, long current) {
            return Math.max(0, entry.keepUntilNanos() - now);
          }

          @Override
          public long expireAfterRead(String key, L1Entry<V> entry, long now, long current) {
            return current;
          }
        })
        .build();
  }

  /** Returns the entry of {@code id}, fresh or not, or null. Allocates nothing. */
  public L1Entry<V> getIfPresent(String id) {
    return cache.getIfPresent(id);
  }

  /** Returns the current ticker time, to test {@link L1Entry#isFresh}. */
  public long nowNanos() {
    return ticker.read();
  }

  /**
   * Stores {@code value} (null = not found) fetched from the origin at {@code fetchedAtMillis},
   * unless it is already older than the staleness bound, and returns the entry either way so the
   * caller can serve it once.
   */
  public L1Entry<V> put(String id, V value, long fetchedAtMillis) {
    long nowNanos = ticker.read();
    long ageMillis = Math.max(0, clock.millis() - fetchedAtMillis);
    long ttl = value == null ? negativeTtlNanos : ttlNanos;
    long freshFor = Math.min(ttl, (maxStalenessMillis - ageMillis) * 1_000_000L);
    long keepFor = Math.max(freshFor, (staleIfErrorMillis - ageMillis) * 1_000_000L);
    L1Entry<V> entry = new L1Entry<>(value, fetchedAtMillis, nowNanos + freshFor, nowNanos + keepFor);
    if (keepFor > 0) {
      cache.put(id, entry);
    }
    return entry;
  }

  /** Drops every entry. */
  public void invalidateAll() {
    cache.invalidateAll();
  }

  /** Approximate number of entries, fresh or not. */
  public long estimatedSize() {
    return cache.estimatedSize();
  }

  /** Runs pending maintenance (evictions), for tests. */
  public void cleanUp() {
    cache.cleanUp();
  }
}
