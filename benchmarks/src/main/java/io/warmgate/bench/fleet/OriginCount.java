package io.warmgate.bench.fleet;

import io.warmgate.agent.Origin;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The loader's side of the origin count: every call and every id the agents of a fleet ask their
 * origins for, kept per id so that duplicates across the fleet show up. Each agent wraps its own
 * origin with {@link #wrap}; the count is the fleet's. With {@link #slowDown} it is also the slow
 * origin stand-in: every call sleeps that long before the real read, as a call to an overloaded
 * database waits its turn.
 */
final class OriginCount {

  private final LongAdder calls = new LongAdder();
  private final LongAdder ids = new LongAdder();
  private final Map<String, LongAdder> readsPerId = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile long delayMillis;

  /** Counts the calls of {@code origin}; keeps its {@link Origin#timeout}. */
  <V> Origin<V> wrap(Origin<V> origin) {
    return new Origin<V>() {
      @Override
      public Map<String, V> loadAll(Collection<String> batch) throws Exception {
        calls.increment();
        ids.add(batch.size());
        for (String id : batch) {
          readsPerId.computeIfAbsent(id, k -> new LongAdder()).increment();
        }
        inFlight.incrementAndGet();
        try {
          long delay = delayMillis;
          if (delay > 0) {
            TimeUnit.MILLISECONDS.sleep(delay);
          }
          return origin.loadAll(batch);
        } finally {
          inFlight.decrementAndGet();
        }
      }

      @Override
      public Duration timeout() {
        return origin.timeout();
      }
    };
  }

  /** Makes every later call sleep {@code delay} before its real read (zero: none). */
  void slowDown(Duration delay) {
    delayMillis = delay.toMillis();
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
    delayMillis = 0;
    calls.reset();
    ids.reset();
    readsPerId.clear();
  }
}
