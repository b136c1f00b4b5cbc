package io.warmgate.agent;

import io.warmgate.agent.hot.HotKeys;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A {@link TieredCache} with fleet services attached: it records the ids looked up in a
 * {@link HotKeys} (sampled, so most lookups pay one random draw), hands invalidations to the
 * fleet (every live key space, every pod), and otherwise forwards every call to the cache it
 * wraps, whose contract it keeps. {@link #close()} first runs the given shutdown action (stopping
 * the services attached to the cache), then closes the wrapped cache.
 *
 * @param <V> the value type
 */
final class FleetCache<V> implements TieredCache<V> {

  private final DefaultTieredCache<V> delegate;
  private final HotKeys hotKeys;
  private final Consumer<Collection<String>> invalidateFleet;
  private final Runnable beforeClose;
  private boolean closed;

  /**
   * Wraps {@code delegate}.
   *
   * @param invalidateFleet invalidates ids in every live key space and pod (the fleet services')
   * @param beforeClose run once by the first {@link #close()}, before the delegate is closed
   */
  FleetCache(DefaultTieredCache<V> delegate, HotKeys hotKeys, Consumer<Collection<String>> invalidateFleet,
      Runnable beforeClose) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.hotKeys = Objects.requireNonNull(hotKeys, "hotKeys");
    this.invalidateFleet = Objects.requireNonNull(invalidateFleet, "invalidateFleet");
    this.beforeClose = Objects.requireNonNull(beforeClose, "beforeClose");
  }

  @Override
  public V get(String id) {
    hotKeys.record(id);
    return delegate.get(id);
  }

  @Override
  public Map<String, V> getAll(Iterable<String> ids) {
    Iterable<String> once = replayable(ids);
    if (once != null) {
      hotKeys.recordAll(once);
    }
    return delegate.getAll(once);
  }

  @Override
  public CompletableFuture<V> getAsync(String id) {
    hotKeys.record(id);
    return delegate.getAsync(id);
  }

  @Override
  public CompletableFuture<Map<String, V>> getAllAsync(Iterable<String> ids) {
    Iterable<String> once = replayable(ids);
    if (once != null) {
      hotKeys.recordAll(once);
    }
    return delegate.getAllAsync(once);
  }

  /** Not sampled: filling L2 is not a lookup, and the preload worker's ids are hot already. */
  @Override
  public int fillL2(Collection<String> ids) {
    return delegate.fillL2(ids);
  }

  /** Not sampled, as {@link #fillL2(Collection)}. */
  @Override
  public int fillL2(Collection<String> ids, Duration minTtlLeft) {
    return delegate.fillL2(ids, minTtlLeft);
  }

  @Override
  public void invalidate(String id) {
    invalidateAll(List.of(id));
  }

  /**
   * Checks the ids, has the fleet delete them in every live key space (this pod's too, on the
   * fleet services' own connection, which the L2 circuit breaker does not guard: an invalidation
   * is not a lookup that may fall back to the origin) and tell every pod, then drops them from
   * this pod's L1 at once, whether or not the fleet call succeeded.
   */
  @Override
  public void invalidateAll(Collection<String> ids) {
    List<String> distinct = delegate.validIds(ids);
    try {
      invalidateFleet.accept(distinct);
    } finally {
      delegate.dropLocal(distinct);
    }
  }

  @Override
  public int maxIdBytes() {
    return delegate.maxIdBytes();
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public String schemaHash() {
    return delegate.schemaHash();
  }

  @Override
  public void close() {
    boolean first;
    synchronized (this) {
      first = !closed;
      closed = true;
    }
    try {
      if (first) {
        beforeClose.run();
      }
    } finally {
      delegate.close();
    }
  }

  @Override
  public String toString() {
    return delegate.toString();
  }

  /**
   * Returns {@code ids} if it can be iterated twice (a collection), else a copy, since an
   * {@link Iterable} in general may be single-use. Null is passed on for the delegate to refuse.
   */
  private static Iterable<String> replayable(Iterable<String> ids) {
    if (ids == null || ids instanceof Collection) {
      return ids;
    }
    List<String> copy = new ArrayList<>();
    ids.forEach(copy::add);
    return copy;
  }
}
