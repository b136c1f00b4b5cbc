package io.warmgate.spanner.changes;

import static org.awaitility.Awaitility.await;

import com.google.cloud.Timestamp;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.contract.valkey.ControlKeys;
import java.time.Duration;
import java.util.Objects;

/**
 * Waits, from outside, until a {@link ChangeStreamWatcher} of a cache reads its Spanner change
 * stream: the watermark its reader saves in {@code {wg:<cache>}:changes:<stream>} (field
 * {@code watermark}, every second) moves past the first value seen. Only a record the stream
 * returned (a heartbeat at the least) moves it, so the stream's queries are running, and a change
 * committed after this returns is read.
 */
final class ChangeStreamProgress {

  private ChangeStreamProgress() {
  }

  /**
   * Returns once the reader of {@code stream} for {@code cache} on the Valkey at {@code redisUri}
   * has advanced its saved watermark.
   *
   * @throws org.awaitility.core.ConditionTimeoutException if it did not within {@code timeout}
   */
  static void awaitReading(String redisUri, String cache, String stream, Duration timeout) {
    String key = new ControlKeys(cache).changes(stream);
    RedisClient client = RedisClient.create(redisUri);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      Timestamp first = await(key + " watermark saved").atMost(timeout)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> watermark(redis, key), Objects::nonNull);
      await(key + " watermark advanced past " + first).atMost(timeout)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> watermark(redis, key), w -> w != null && w.compareTo(first) > 0);
    } finally {
      client.shutdown();
    }
  }

  private static Timestamp watermark(RedisCommands<String, String> redis, String key) {
    String saved = redis.hget(key, "watermark");
    return saved == null ? null : Timestamp.parseTimestamp(saved);
  }
}
