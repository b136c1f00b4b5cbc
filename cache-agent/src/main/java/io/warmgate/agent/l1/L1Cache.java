package io.warmgate.agent.l1;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.ToLongFunction;

/**
 * The in-process tier. An entry is fresh until {@code min(now + ttl, fetchedAt + maxStaleness)}
 * ({@code ttl} is the negative TTL for not-found entries) and is kept, no longer fresh, until
 * {@code fetchedAt + staleIfError} if that is later, so a stale value can be served when the
 * origin fails. Bounded by entry count. Thread-safe.
 *
 * <p>Fresh and kept entries live in two Caffeine caches, each expiring on its own deadline: a hit
 * ({@link #getFresh}) is then one Caffeine read, whose expiry check is the freshness check, and
 * reads the clock once; only the miss path looks for a stale entry ({@link #getKept}).
 *
 * @param <V> the value type
 */
public final class L1Cache<V> {

  private final Cache<String, L1Entry<V>> fresh;
  private final Cache<String, L1Entry<V>> kept;
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
    this.fresh = cache(maxSize, ticker, L1Entry::freshUntilNanos);
    this.kept = cache(maxSize, ticker, L1Entry::keepUntilNanos);
  }

  private static <V> Cache<String, L1Entry<V>> cache(long maxSize, Ticker ticker,
      ToLongFunction<L1Entry<V>> deadline) {
    return Caffeine.newBuilder()
        .maximumSize(maxSize)
        .ticker(ticker)
        .expireAfter(new Expiry<String, L1Entry<V>>() {
          @Override
          public long expireAfterCreate(String key, L1Entry<V> entry, long now) {
            return Math.max(0, deadline.applyAsLong(entry) - now);
          }

          @Override
          public long expireAfterUpdate(String key, L1Entry<V> entry, long now, long current) {
            return Math.max(0, deadline.applyAsLong(entry) - now);
          }

          @Override
          public long expireAfterRead(String key, L1Entry<V> entry, long now, long current) {
            return current;
          }
        })
        .build();
  }

  /** Returns the fresh entry of {@code id}, or null. Allocates nothing. */
  public L1Entry<V> getFresh(String id) {
    return fresh.getIfPresent(id);
  }

  /** Returns the entry of {@code id} that is kept for stale-if-error, fresh or not, or null. */
  public L1Entry<V> getKept(String id) {
    return kept.getIfPresent(id);
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
    if (freshFor > 0) {
      fresh.put(id, entry);
    } else {
      fresh.invalidate(id);
    }
    if (keepFor > 0) {
      kept.put(id, entry);
    }
    return entry;
  }

  /** Drops the entry of {@code id}, fresh or kept. */
  public void invalidate(String id) {
    fresh.invalidate(id);
    kept.invalidate(id);
  }

  /** Drops every entry. */
  public void invalidateAll() {
    fresh.invalidateAll();
    kept.invalidateAll();
  }

  /** Approximate number of entries, fresh or not. */
  public long estimatedSize() {
    return kept.estimatedSize();
  }

  /** Runs pending maintenance (evictions), for tests. */
  public void cleanUp() {
    fresh.cleanUp();
    kept.cleanUp();
  }
}
