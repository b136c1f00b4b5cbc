package io.warmgate.operator.gate;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what the agents report about one schema-hash namespace: coverage of the hot set, hit
 * ratio over a window of 10-second stats buckets, and distinct keys written
 * (docs/valkey-layout.md).
 * Commands are pipelined on the shared connection, so one read costs about one round trip.
 */
final class NamespaceStats {

  private static final Logger log = LoggerFactory.getLogger(NamespaceStats.class);

  /** Width of a {@code T:stats:<hash>:<bucket>} bucket. */
  static final long BUCKET_SECONDS = 10;

  private final StatefulRedisConnection<String, String> valkey;
  private final ControlKeys keys;
  private final Duration timeout;

  /** @param timeout how long to wait for one pipelined batch of replies */
  NamespaceStats(StatefulRedisConnection<String, String> valkey, ControlKeys keys,
      Duration timeout) {
    this.valkey = valkey;
    this.keys = keys;
    this.timeout = timeout;
  }

  /**
   * The share of the {@code hotSetSize} hottest ids whose value key exists in namespace
   * {@code schemaHash} (pipelined {@code EXISTS}).
   *
   * @throws RedisException if Valkey cannot be read in time
   */
  Coverage coverage(String schemaHash, int hotSetSize) {
    return coverageOf(schemaHash, WrongType.naming(keys.hot(),
        () -> valkey.sync().zrevrange(keys.hot(), 0, hotSetSize - 1L)));
  }

  /**
   * The share of the ids snapshotted by the warm job of {@code schemaHash} ({@code T:warm:<hash>:ids})
   * whose value key exists in that namespace: what a Preload gate waits for. Unlike the live hot
   * set, whose tail keeps reshuffling under traffic, the snapshot is a fixed target.
   *
   * @throws RedisException if Valkey cannot be read in time
   */
  Coverage jobCoverage(String schemaHash) {
    String ids = keys.warmIds(schemaHash);
    return coverageOf(schemaHash, WrongType.naming(ids, () -> valkey.sync().lrange(ids, 0, -1)));
  }

  private Coverage coverageOf(String schemaHash, List<String> hot) {
    RedisAsyncCommands<String, String> async = valkey.async();
    List<RedisFuture<Long>> exists = new ArrayList<>(hot.size());
    for (String id : hot) {
      exists.add(async.exists(keys.value(schemaHash, id)));
    }
    long present = 0;
    for (RedisFuture<Long> reply : exists) {
      present += await(reply);
    }
    return new Coverage(present, hot.size());
  }

  /**
   * The L1+L2 hit ratio of namespace {@code schemaHash} over the buckets overlapping the
   * {@code window} before {@code now}: (l1Hits + l2Hits) / (l1Hits + l2Hits + misses).
   *
   * @return null when no request was counted in the window
   * @throws io.lettuce.core.RedisException if Valkey cannot be read in time
   */
  Double hitRatio(String schemaHash, Duration window, Instant now) {
    long last = Math.floorDiv(now.getEpochSecond(), BUCKET_SECONDS) * BUCKET_SECONDS;
    long first = Math.floorDiv(now.minus(window).getEpochSecond(), BUCKET_SECONDS)
        * BUCKET_SECONDS;
    RedisAsyncCommands<String, String> async = valkey.async();
    List<RedisFuture<Map<String, String>>> buckets = new ArrayList<>();
    for (long bucket = first; bucket <= last; bucket += BUCKET_SECONDS) {
      buckets.add(async.hgetall(keys.statsBucket(schemaHash, bucket)));
    }
    // Doubles: counters are whatever Valkey holds, and long sums of huge ones overflow.
    double hits = 0;
    double requests = 0;
    for (int i = 0; i < buckets.size(); i++) {
      Map<String, String> counters = orIfWrongType(buckets.get(i), Map.of(),
          keys.statsBucket(schemaHash, first + i * BUCKET_SECONDS));
      double bucketHits = (double) counter(counters, "l1Hits") + counter(counters, "l2Hits");
      hits += bucketHits;
      requests += bucketHits + counter(counters, "misses");
    }
    return requests == 0 ? null : hits / requests;
  }

  /**
   * Distinct ids written to namespace {@code schemaHash} ({@code PFCOUNT T:keys:<hash>}); 0 when
   * that key is not a HyperLogLog.
   */
  long keyCount(String schemaHash) {
    String key = keys.keys(schemaHash);
    return orIfWrongType(valkey.async().pfcount(key), 0L, key);
  }

  /**
   * The reply, or {@code fallback} when the key holds another type (WRONGTYPE): such a key only
   * feeds status and the hit ratio, where "nothing counted" is the safe reading.
   */
  private <T> T orIfWrongType(RedisFuture<T> reply, T fallback, String key) {
    try {
      return await(reply);
    } catch (RedisException e) {
      if (WrongType.isWrongType(e.getCause())) {
        log.warn("Ignoring Valkey key {}: {}", key, e.getCause().getMessage());
        return fallback;
      }
      throw e;
    }
  }

  private <T> T await(RedisFuture<T> reply) {
    try {
      return reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisException("interrupted while reading Valkey", e);
    } catch (ExecutionException e) {
      throw new RedisException(e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new RedisCommandTimeoutException(
          "Valkey did not answer within " + timeout.toMillis() + " ms");
    }
  }

  private static long counter(Map<String, String> counters, String name) {
    return WarmJobs.number(counters.get(name));
  }
}
