package io.warmgate.agent.faults;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** What the load driver saw during one named stretch of a test: lookups, failures, latencies, ids. */
final class Phase {

  private static final int KEPT_FAILURES = 5;

  private final String name;
  private final long startNanos = System.nanoTime();
  private volatile long endNanos;
  private final AtomicLong lookups = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final List<String> firstFailures = new CopyOnWriteArrayList<>();
  private final List<Set<String>> idsPerCache;
  private long[] latencies = new long[4096];
  private int latencyCount;

  Phase(String name, int caches) {
    this.name = name;
    this.idsPerCache = new CopyOnWriteArrayList<>();
    for (int i = 0; i < caches; i++) {
      idsPerCache.add(ConcurrentHashMap.newKeySet());
    }
  }

  void begin(int cache, String id) {
    idsPerCache.get(cache).add(id);
  }

  void succeeded(long nanos) {
    lookups.incrementAndGet();
    record(nanos);
  }

  void failed(long nanos, String failure) {
    lookups.incrementAndGet();
    failures.incrementAndGet();
    if (firstFailures.size() < KEPT_FAILURES) {
      firstFailures.add(failure);
    }
    record(nanos);
  }

  private synchronized void record(long nanos) {
    if (latencyCount == latencies.length) {
      latencies = Arrays.copyOf(latencies, latencyCount * 2);
    }
    latencies[latencyCount++] = nanos;
  }

  void end() {
    if (endNanos == 0) {
      endNanos = System.nanoTime();
    }
  }

  String name() {
    return name;
  }

  long lookups() {
    return lookups.get();
  }

  long failures() {
    return failures.get();
  }

  List<String> firstFailures() {
    return List.copyOf(firstFailures);
  }

  /** Distinct ids cache {@code cache} was asked for in this phase. */
  Set<String> ids(int cache) {
    return Set.copyOf(idsPerCache.get(cache));
  }

  double seconds() {
    long end = endNanos == 0 ? System.nanoTime() : endNanos;
    return (end - startNanos) / 1e9;
  }

  /** The {@code p}-th percentile (0-100) of lookup latency, in milliseconds; 0 without lookups. */
  synchronized double percentileMillis(double p) {
    if (latencyCount == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(latencies, latencyCount);
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / (double) TimeUnit.MILLISECONDS.toNanos(1);
  }

  @Override
  public String toString() {
    return String.format("phase %-10s %6.1f s  lookups %6d (%5.0f/s)  failures %d  p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms%s",
        name, seconds(), lookups(), lookups() / Math.max(seconds(), 1e-3), failures(),
        percentileMillis(50), percentileMillis(99), percentileMillis(100),
        firstFailures.isEmpty() ? "" : "  first failures " + firstFailures);
  }
}
