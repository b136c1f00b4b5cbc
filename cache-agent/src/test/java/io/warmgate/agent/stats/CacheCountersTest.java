package io.warmgate.agent.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.CountingOrigin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the statistic ← meter mapping to the meters the cache really registers. */
class CacheCountersTest {

  @Test
  void readsTheCountsOfTheNamedCacheOnly() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");
    try (TieredCache<String> deals = WarmGate.newBuilder(String.class, origin).cacheName("deals")
            .meterRegistry(registry).build();
        TieredCache<String> other = WarmGate.newBuilder(String.class, origin).cacheName("other")
            .meterRegistry(registry).build()) {
      CacheCounters counters = new CacheCounters(registry, "deals");
      deals.get("a"); // L1 miss, origin
      deals.get("a"); // L1 hit
      deals.get("a"); // L1 hit
      deals.getAll(List.of("b", "nope")); // 2 L1 misses, one origin call for 2 ids
      other.get("a");

      long[] counts = counters.read();
      assertThat(field(counts, "l1Hits")).isEqualTo(2);
      assertThat(field(counts, "originLoads")).isEqualTo(3);
      assertThat(field(counts, "originErrors")).isZero();
      assertThat(field(counts, "notFound")).isEqualTo(1);
      // Without L2 there are no L2 hits, misses or writes.
      assertThat(field(counts, "l2Hits")).isZero();
      assertThat(field(counts, "l2Writes")).isZero();
    }
  }

  @Test
  void unregisteredMetersReadAsZero() {
    long[] counts = new CacheCounters(new SimpleMeterRegistry(), "deals").read();
    assertThat(counts).hasSize(CacheCounters.STATS.size()).containsOnly(0L);
  }

  private static long field(long[] counts, String field) {
    for (int i = 0; i < CacheCounters.STATS.size(); i++) {
      if (CacheCounters.STATS.get(i).field().equals(field)) {
        return counts[i];
      }
    }
    throw new AssertionError("no statistic " + field);
  }
}
