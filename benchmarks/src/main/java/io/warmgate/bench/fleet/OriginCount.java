package io.warmgate.bench.fleet;

import io.warmgate.agent.Origin;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The loader's side of the origin count: every call and every id the agents of a fleet ask their
 * origins for, kept per id so that duplicates across the fleet show up. Each agent wraps its own
 * origin with {@link #wrap}; the count is the fleet's.
 */
final class OriginCount {

  private final LongAdder calls = new LongAdder();
  private final LongAdder ids = new LongAdder();
  private final Map<String, LongAdder> readsPerId = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();

  <V> Origin<V> wrap(Origin<V> origin) {
    return batch -> {
      calls.increment();
      ids.add(batch.size());
      for (String id : batch) {
        readsPerId.computeIfAbsent(id, k -> new LongAdder()).increment();
      }
      inFlight.incrementAndGet();
      try {
        return origin.loadAll(batch);
      } finally {
        inFlight.decrementAndGet();
      }
    };
  }

  /** Origin calls started and not yet returned. */
  int inFlight() {
    return inFlight.get();
  }

  long calls() {
    return calls.sum();
  }

  long ids() {
    return ids.sum();
  }

  long distinctIds() {
    return readsPerId.size();
  }

  void reset() {
    calls.reset();
    ids.reset();
    readsPerId.clear();
  }
}
