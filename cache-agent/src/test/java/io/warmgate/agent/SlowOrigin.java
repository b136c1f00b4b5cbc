package io.warmgate.agent;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for an overloaded database, in the test's JVM: every call sleeps {@code callMillis}
 * and then answers {@code "D" + id} for each id, or throws while {@link #failing} is set. Every id
 * it is asked for is counted in a map that a whole test fleet shares, so reads of one id by several
 * pods add up. It declares {@link #timeout()} as an origin with a deadline does.
 */
final class SlowOrigin implements Origin<String> {

  final AtomicInteger calls = new AtomicInteger();
  volatile RuntimeException failing;
  private final Map<String, AtomicInteger> reads;
  private final long callMillis;
  private final Duration timeout;

  SlowOrigin(Map<String, AtomicInteger> reads, Duration call, Duration timeout) {
    this.reads = reads;
    this.callMillis = call.toMillis();
    this.timeout = timeout;
  }

  /** The bound of one call, as {@code SpannerOrigin} declares its own. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Map<String, String> loadAll(Collection<String> ids) throws InterruptedException {
    calls.incrementAndGet();
    ids.forEach(id -> reads.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet());
    TimeUnit.MILLISECONDS.sleep(callMillis);
    RuntimeException e = failing;
    if (e != null) {
      throw e;
    }
    Map<String, String> out = new HashMap<>();
    ids.forEach(id -> out.put(id, "D" + id));
    return out;
  }

  /** Origin ids read over the fleet, divided by {@code requested} distinct ids. */
  static double readsPerId(Map<String, AtomicInteger> reads, int requested) {
    return reads.values().stream().mapToLong(AtomicInteger::get).sum() / (double) requested;
  }

  static Map<String, AtomicInteger> newCount() {
    return new ConcurrentHashMap<>();
  }
}
