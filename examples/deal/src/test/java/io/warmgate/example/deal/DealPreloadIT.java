package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Meters;
import io.warmgate.agent.Origin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmableCaches;
import io.warmgate.agent.preload.PreloadWorker;
import io.warmgate.spanner.SpannerOrigin;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Preloading Deals from the real Spanner emulator into a real redis-server. */
class DealPreloadIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  @Test
  void aWarmJobFillsTheNamespaceWithDealsReadInBatchesFromSpanner() {
    List<String> seeded = DealSeeder.seed(spanner.databaseClient(), 300);
    List<String> hot = new ArrayList<>(seeded.subList(100, 300));
    hot.add(7, "deal-999999"); // no such deal: preloaded as not found
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    SpannerOrigin<Deal> spannerOrigin = DealOrigin.spanner(spanner.databaseClient());
    Origin<Deal> origin = ids -> {
      batchSizes.add(ids.size());
      return spannerOrigin.loadAll(ids);
    };
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect();
        TieredCache<Deal> canary = WarmGate.newBuilder(Deal.class, origin).cacheName("deals")
            .valkeyUri(redis.uri()).meterRegistry(meters).l2Timeout(Duration.ofMillis(500)).build();
        PreloadWorker worker = new PreloadWorker(ValkeyConnection.wrap(connection),
            WarmableCaches.of(canary), "deals-5c4b-a",
            InstantSource.system(), scheduler, Duration.ofMillis(50))) {
      RedisCommands<String, String> raw = connection.sync();
      KeySpace keys = new KeySpace("deals", canary.schemaHash());
      raw.rpush(keys.warmIdsKey(), hot.toArray(String[]::new));
      raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "201", "rate", "2000",
          "batchSize", "50"));
      worker.start();

      await().atMost(Duration.ofSeconds(30)).until(() ->
          "Done".equals(raw.hget(keys.warmJobKey(), "state")));
      assertThat(raw.hgetall(keys.warmJobKey())).containsEntry("filled", "201")
          .containsEntry("errors", "0").containsEntry("cursor", "201");
      assertThat(batchSizes).containsExactly(50, 50, 50, 50, 1);
      await().atMost(Duration.ofSeconds(5)).until(() ->
          raw.exists(hot.stream().map(keys::valueKey).toArray(String[]::new)) == hot.size());
      assertThat(raw.keys(keys.valuePrefix() + "*")).hasSize(hot.size());

      // Another canary pod now reads every preloaded deal from L2.
      SimpleMeterRegistry otherMeters = new SimpleMeterRegistry();
      try (TieredCache<Deal> other = WarmGate.newBuilder(Deal.class, spannerOrigin)
          .cacheName("deals").valkeyUri(redis.uri()).meterRegistry(otherMeters)
          .l2Timeout(Duration.ofMillis(500)).build()) {
        assertThat(other.getAll(hot)).hasSize(200).containsKeys(seeded.get(100), seeded.get(299));
        assertThat(Meters.originLoads(otherMeters)).isZero();
      }
    } finally {
      scheduler.shutdownNow();
      client.shutdown();
    }
  }
}
