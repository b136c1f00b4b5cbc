package io.warmgate.agent;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls the origin for a batch of ids, counted and timed, through its circuit breaker. */
final class OriginCalls<V> {

  /** Thrown by {@link #call} instead of calling the origin while its breaker refuses calls. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    private Refused() {
      super("origin breaker refused the call", null, false, false);
    }
  }

  static final Refused REFUSED = new Refused();

  private static final Logger log = LoggerFactory.getLogger(OriginCalls.class);

  /**
   * An origin's answer, and whether it came later than the origin's timeout. A late answer is
   * served to its callers but never cached: an invalidation's second pass runs once every load
   * that read a row before the change has ended within that bound, so a late one could write the
   * old row back after it.
   */
  record Answer<V>(Map<String, V> values, boolean late) {}

  private final String name;
  private final Origin<V> origin;
  private final OriginBreaker breaker;
  private final CacheMetrics metrics;
  private final long timeoutNanos;

  OriginCalls(String name, Origin<V> origin, OriginBreaker breaker, CacheMetrics metrics,
      long timeoutNanos) {
    this.name = name;
    this.origin = origin;
    this.breaker = breaker;
    this.metrics = metrics;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Calls the origin once for {@code ids}; a null map is an origin error. Throws
   * {@link #REFUSED} without calling it while the breaker refuses calls.
   */
  Answer<V> call(List<String> ids) throws Exception {
    if (!breaker.tryAcquire()) {
      metrics.originSkipped.increment();
      throw REFUSED;
    }
    long start = System.nanoTime();
    metrics.originLoads.increment();
    metrics.originKeys.increment(ids.size());
    try {
      Map<String, V> loaded = origin.loadAll(Collections.unmodifiableList(ids));
      if (loaded == null) {
        throw new NullPointerException("Origin.loadAll returned null instead of a map");
      }
      long took = System.nanoTime() - start;
      breaker.succeeded(took);
      boolean late = took > timeoutNanos;
      if (late) {
        metrics.originLate.increment();
        log.warn("cache '{}': the origin answered {} ids after {} ms, past its timeout of {} ms: "
            + "served, not cached", name, ids.size(), took / 1_000_000, timeoutNanos / 1_000_000);
      }
      return new Answer<>(loaded, late);
    } catch (Throwable t) {
      breaker.failed(System.nanoTime() - start, t);
      metrics.originErrors.increment();
      log.debug("cache '{}': origin failed for {} ids", name, ids.size(), t);
      throw t;
    } finally {
      metrics.originLatency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }
}
