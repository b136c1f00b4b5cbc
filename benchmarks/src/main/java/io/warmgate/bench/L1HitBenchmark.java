package io.warmgate.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.bench.common.SyntheticDeals;
import io.warmgate.example.deal.Deal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An L1 hit of {@link TieredCache#get} against the floor it stands on: Caffeine's
 * {@code getIfPresent} on a cache of the same size and TTL holding the same entries.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class L1HitBenchmark {

  @Param("4096")
  int keys;

  String[] ids;
  TieredCache<Deal> warmgate;
  Cache<String, Deal> caffeine;

  @Setup(Level.Trial)
  public void setUp() {
    ids = SyntheticDeals.ids(keys);
    warmgate = WarmGate.newBuilder(Deal.class, SyntheticDeals.origin())
        .cacheName("bench")
        .l1Ttl(Duration.ofMinutes(10))
        .l1MaximumSize(keys * 2L)
        .maxStaleness(Duration.ofMinutes(30))
        .build();
    warmgate.getAll(List.of(ids));
    caffeine = Caffeine.newBuilder().maximumSize(keys * 2L).expireAfterWrite(Duration.ofMinutes(10)).build();
    for (String id : ids) {
      caffeine.put(id, SyntheticDeals.deal(id));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    warmgate.close();
  }

  /** Each thread walks the ids with its own stride so threads do not read in lockstep. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) (Thread.currentThread().getId() * 7919);

    String id(String[] ids) {
      next = (next + 1) & (ids.length - 1);
      return ids[next];
    }
  }

  @Benchmark
  public Deal caffeineGetIfPresent(Cursor cursor) {
    return caffeine.getIfPresent(cursor.id(ids));
  }

  @Benchmark
  public Deal warmgateGet(Cursor cursor) {
    return warmgate.get(cursor.id(ids));
  }
}
