package io.warmgate.agent.faults;

import io.warmgate.agent.Origin;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts what reaches an origin, independently of the cache's own metrics. */
final class OriginMeter<V> implements Origin<V> {

  private final Origin<V> origin;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong keys = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Map<String, AtomicLong> perId = new ConcurrentHashMap<>();
  private volatile boolean tracking;

  OriginMeter(Origin<V> origin) {
    this.origin = origin;
  }

  @Override
  public Map<String, V> loadAll(Collection<String> ids) throws Exception {
    calls.incrementAndGet();
    keys.addAndGet(ids.size());
    if (tracking) {
      ids.forEach(id -> perId.computeIfAbsent(id, k -> new AtomicLong()).incrementAndGet());
    }
    try {
      return origin.loadAll(ids);
    } catch (Exception | Error e) {
      errors.incrementAndGet();
      throw e;
    }
  }

  /** From now on, counts the loads of each id. */
  void trackIds() {
    perId.clear();
    tracking = true;
  }

  /** The most loads of one id since {@link #trackIds()}. */
  long maxLoadsOfOneId() {
    return perId.values().stream().mapToLong(AtomicLong::get).max().orElse(0);
  }

  /** How many ids were loaded more than once since {@link #trackIds()}. */
  long idsLoadedTwice() {
    return perId.values().stream().filter(n -> n.get() > 1).count();
  }

  long calls() {
    return calls.get();
  }

  long keys() {
    return keys.get();
  }

  long errors() {
    return errors.get();
  }
}
