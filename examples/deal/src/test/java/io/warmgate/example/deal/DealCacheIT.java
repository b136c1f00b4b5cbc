package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.Meters;
import io.warmgate.agent.RawRedis;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Deals through L1, a real redis-server and the real Spanner emulator, configured as in a pod. */
class DealCacheIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private final ManualClock clock = new ManualClock();
  private final List<TieredCache<?>> opened = new ArrayList<>();
  private List<String> ids;

  @BeforeEach
  void seed() {
    redis.flushAll();
    ids = DealSeeder.seed(spanner.databaseClient(), 50);
  }

  @AfterEach
  void close() {
    opened.forEach(TieredCache::close);
  }

  private TieredCache<Deal> pod(String name, SimpleMeterRegistry registry) {
    WarmGateConfig config = WarmGateConfig.from(Map.of(
        "WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port(),
        "WARMGATE_L2_TIMEOUT", "500ms",
        "WARMGATE_POD_NAME", name));
    TieredCache<Deal> cache = WarmGate.fromConfig(config, Deal.class,
            DealOrigin.spanner(spanner.databaseClient(), Duration.ofSeconds(2)))
        .clock(clock)
        .meterRegistry(registry)
        .build();
    opened.add(cache);
    return cache;
  }

  private void awaitAllInL2(TieredCache<Deal> cache, List<String> keysOf) {
    KeySpace keys = new KeySpace(cache.name(), cache.schemaHash());
    try (RawRedis raw = new RawRedis(redis.uri())) {
      await().atMost(Duration.ofSeconds(10)).until(() ->
          raw.sync().exists(keysOf.stream().map(keys::valueKey).toArray(String[]::new)) == keysOf.size());
    }
  }

  @Test
  void batchIsReadWithOneQueryAndASecondPodReadsItFromL2() {
    SimpleMeterRegistry metricsA = new SimpleMeterRegistry();
    SimpleMeterRegistry metricsB = new SimpleMeterRegistry();
    TieredCache<Deal> a = pod("a", metricsA);
    TieredCache<Deal> b = pod("b", metricsB);

    Map<String, Deal> fromSpanner = a.getAll(ids);
    assertThat(fromSpanner).hasSize(50);
    assertThat(Meters.originLoads(metricsA)).isEqualTo(1);
    awaitAllInL2(a, ids);

    Map<String, Deal> fromL2 = b.getAll(ids);
    assertThat(fromL2).as("identical after the envelope round trip").isEqualTo(fromSpanner);
    assertThat(Meters.originLoads(metricsB)).isZero();
    assertThat(b.get("deal-999999")).isNull();
  }

  @Test
  void twoPodsReloadEachDealOncePerRefreshAheadWindow() {
    SimpleMeterRegistry metricsA = new SimpleMeterRegistry();
    SimpleMeterRegistry metricsB = new SimpleMeterRegistry();
    TieredCache<Deal> a = pod("a", metricsA);
    TieredCache<Deal> b = pod("b", metricsB);
    List<String> batch = ids.subList(0, 10);
    a.getAll(batch);
    awaitAllInL2(a, batch);
    KeySpace keys = new KeySpace(a.name(), a.schemaHash());
    long loadedAt = clock.millis();
    clock.advance(Duration.ofSeconds(200)); // L1 expired in both pods, 40 s of L2 TTL left

    assertThat(a.getAll(batch)).hasSize(10);
    assertThat(b.getAll(batch)).hasSize(10);

    try (RawRedis raw = new RawRedis(redis.uri())) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        for (String id : batch) {
          assertThat(raw.envelope(keys.valueKey(id), a.schemaHash()).fetchedAtMillis()).isGreaterThan(loadedAt);
          assertThat(raw.sync().exists(keys.lockKey(id))).isZero();
        }
      });
    }
    long reloadedKeys = Meters.count(metricsA, "warmgate.origin.keys")
        + Meters.count(metricsB, "warmgate.origin.keys") - batch.size();
    assertThat(reloadedKeys).as("each deal reloaded once across both pods").isEqualTo(batch.size());
  }
}
