package io.warmgate.bench.fleet;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.agent.preload.PreloadWorker;
import io.warmgate.agent.preload.WarmableCache;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Drives the agent's {@link PreloadWorker} through a warm job over given ids, to measure how fast
 * it fills a namespace at a given rate.
 */
final class Preloader implements AutoCloseable {

  /** The operator's default {@code spec.warmup.preloadRate}, ids/s. */
  static final int RATE = 500;
  /** The operator asks for batches of min(200, rate) ids. */
  static final int BATCH_SIZE = 200;

  /** What a warm job did: ids in the job, loaded, failed, and the wall time from start to Done. */
  record Outcome(long target, long filled, long errors, double seconds) {
    double idsPerSecond() {
      return filled / seconds;
    }
  }

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final InstantSource clock;

  Preloader(String redisUri, InstantSource clock) {
    this.client = RedisClient.create(redisUri);
    this.connection = client.connect();
    this.clock = clock;
  }

  /** Makes {@code ids} the hot set of {@code cache}'s name, hottest first. */
  void seedHotSet(TieredCache<?> cache, List<String> ids) {
    KeySpace keys = new KeySpace(cache.name(), cache.schemaHash());
    RedisCommands<String, String> redis = connection.sync();
    for (int i = 0; i < ids.size(); i++) {
      redis.zadd(keys.hotKey(), ids.size() - i, ids.get(i));
    }
  }

  /** Opens a warm job for {@code cache}'s namespace and lets it preload; returns when it ends. */
  Outcome preload(TieredCache<?> cache, int hotSetSize, int rate, Duration timeout)
      throws InterruptedException {
    RedisCommands<String, String> redis = connection.sync();
    KeySpace keys = new KeySpace(cache.name(), cache.schemaHash());
    WarmJobOpener.open(redis, keys, hotSetSize, rate, Math.min(BATCH_SIZE, rate), clock.millis());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    long start = System.nanoTime();
    try (PreloadWorker worker = new PreloadWorker(ValkeyConnection.wrap(connection), warmable(cache), "canary",
        clock, scheduler, Duration.ofMillis(50))) {
      worker.start();
      long deadline = start + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        Map<String, String> job = redis.hgetall(keys.warmJobKey());
        String state = job.get("state");
        if ("Done".equals(state) || "Failed".equals(state)) {
          if ("Failed".equals(state)) {
            throw new IllegalStateException("the warm job failed: " + job.get("message"));
          }
          return new Outcome(Long.parseLong(job.get("target")), Long.parseLong(job.get("filled")),
              Long.parseLong(job.get("errors")), (System.nanoTime() - start) / 1e9);
        }
        Thread.sleep(20);
      }
      throw new IllegalStateException("the warm job did not finish within " + timeout + ": "
          + redis.hgetall(keys.warmJobKey()));
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  /** {@code cache} as the worker sees it, as the agent's fleet services adapt it. */
  private static WarmableCache warmable(TieredCache<?> cache) {
    return new WarmableCache() {
      @Override
      public int fillL2(Collection<String> ids) {
        return cache.fillL2(ids);
      }

      @Override
      public int fillL2(Collection<String> ids, Duration minTtlLeft) {
        return cache.fillL2(ids, minTtlLeft);
      }

      @Override
      public int maxIdBytes() {
        return cache.maxIdBytes();
      }

      @Override
      public String name() {
        return cache.name();
      }

      @Override
      public String schemaHash() {
        return cache.schemaHash();
      }
    };
  }
}
