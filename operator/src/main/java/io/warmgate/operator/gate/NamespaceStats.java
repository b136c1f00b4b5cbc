package io.warmgate.operator.gate;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what the agents report about one schema-hash namespace: the hot set and its coverage, hit
 * ratio over a window of 10-second stats buckets, and distinct keys written
 * (docs/valkey-layout.md).
 * Commands are pipelined on the shared connection, so one read costs about one round trip.
 */
public final class NamespaceStats {

  private static final Logger log = LoggerFactory.getLogger(NamespaceStats.class);

  /** Width of a {@code T:stats:<hash>:<bucket>} bucket. */
  static final long BUCKET_SECONDS = 10;
  /**
   * Most ids whose value key one coverage measurement checks: 1,024 give the share present within
   * about ±2.6 points at 95% confidence (±1.96 × √(0.25 / 1,024)).
   */
  static final int COVERAGE_SAMPLE = 1024;

  // KEYS: hot, landmark, meta. ARGV: how many hottest ids. Returns {ids and scores, landmark or
  // nil, landmark's type, meta fields and values, meta's type}.
  private static final String READ_HOT = """
      local t = redis.call('TYPE', KEYS[1]).ok
      if t ~= 'zset' and t ~= 'none' then
        return redis.error_reply('WRONGTYPE Operation against a key holding the wrong kind of value')
      end
      local ranked = {}
      if tonumber(ARGV[1]) > 0 then
        ranked = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
      end
      local landmarkType = redis.call('TYPE', KEYS[2]).ok
      local landmark = false
      if landmarkType == 'string' then
        landmark = redis.call('GET', KEYS[2])
      end
      local metaType = redis.call('TYPE', KEYS[3]).ok
      local meta = {}
      if metaType == 'hash' then
        meta = redis.call('HGETALL', KEYS[3])
      end
      return {ranked, landmark, landmarkType, meta, metaType}
      """;

  private final ValkeyCommands valkey;
  private final ControlKeys keys;
  private final Duration timeout;

  /** @param timeout how long to wait for one pipelined batch of replies */
  NamespaceStats(ValkeyCommands valkey, ControlKeys keys,
      Duration timeout) {
    this.valkey = valkey;
    this.keys = keys;
    this.timeout = timeout;
  }

  /**
   * The hot set the gate warms and measures: of the {@code hotSetSize} hottest tracked ids, those
   * {@link HotSetForecast} expects to be requested within {@code window}. The ids, their scores,
   * the landmark and the meta are read in one script, so a rescale cannot fall between them.
   *
   * @throws RedisException naming {@code T:hot} if it holds another type, or if Valkey cannot be
   *     read in time
   */
  HotSetForecast.Cut hotSet(int hotSetSize, Duration window, Instant now) {
    List<Object> reply = WrongType.naming(keys.hot(), () -> valkey.sync().eval(READ_HOT,
        ScriptOutputType.MULTI, new String[] {keys.hot(), keys.hotLandmark(), keys.hotMeta()},
        String.valueOf(hotSetSize)));
    List<?> flat = (List<?>) reply.get(0);
    List<ScoredValue<String>> ranked = new ArrayList<>(flat.size() / 2);
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      ranked.add(ScoredValue.just(score((String) flat.get(i + 1)), (String) flat.get(i)));
    }
    String landmarkType = (String) reply.get(2);
    String metaType = (String) reply.get(4);
    if (!"string".equals(landmarkType) && !"none".equals(landmarkType)) {
      return HotSetForecast.all(ranked, window, keys.hotLandmark() + " holds a " + landmarkType
          + ", not a string");
    }
    if (!"hash".equals(metaType) && !"none".equals(metaType)) {
      return HotSetForecast.all(ranked, window, keys.hotMeta() + " holds a " + metaType
          + ", not a hash");
    }
    Map<String, String> meta = new HashMap<>();
    List<?> fields = (List<?>) reply.get(3);
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      meta.put((String) fields.get(i), (String) fields.get(i + 1));
    }
    return HotSetForecast.of(keys, ranked, (String) reply.get(1), meta, now, window);
  }

  /**
   * The share of {@code ids} whose value key exists in namespace {@code schemaHash} (pipelined
   * {@code EXISTS}): of all of them when there are at most {@link #COVERAGE_SAMPLE}, else of a
   * fixed random sample of that many, so a pass costs at most that many {@code EXISTS} whatever
   * the number of ids. The sample is the ids with the smallest hash of (schema hash, id): the same
   * in every pass, replica and restart while the ids stay, and independent of how hot an id is.
   *
   * @throws RedisException if Valkey cannot be read in time
   */
  Coverage coverage(String schemaHash, List<String> ids) {
    List<String> checked = sample(schemaHash, ids, COVERAGE_SAMPLE);
    RedisClusterAsyncCommands<String, String> async = valkey.async();
    List<RedisFuture<Long>> exists = new ArrayList<>(checked.size());
    for (String id : checked) {
      exists.add(async.exists(keys.values(schemaHash).value(id)));
    }
    long present = 0;
    for (RedisFuture<Long> reply : exists) {
      present += await(reply);
    }
    return new Coverage(present, ids.size(), checked.size());
  }

  /** The {@code size} ids of {@code ids} with the smallest {@link #rank}; all when no more. */
  static List<String> sample(String schemaHash, List<String> ids, int size) {
    if (ids.size() <= size) {
      return ids;
    }
    record Ranked(long rank, String id) {}
    return ids.stream().map(id -> new Ranked(rank(schemaHash, id), id))
        .sorted(java.util.Comparator.comparingLong(Ranked::rank).thenComparing(Ranked::id))
        .limit(size).map(Ranked::id).toList();
  }

  /** A 64-bit hash of (schemaHash, id), the same in every JVM: FNV-1a, then a SplitMix64 mix. */
  static long rank(String schemaHash, String id) {
    long h = 0xcbf29ce484222325L;
    for (byte b : (schemaHash + ':' + id).getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    return h ^ (h >>> 31);
  }

  /** Hottest ids a forecast checks one by one; the rest of the hot set is sampled. */
  static final int FORECAST_HEAD = 128;
  /** Most of the remaining hot-set ids a forecast checks, as a fixed random sample. */
  static final int FORECAST_SAMPLE = 512;

  /**
   * The forecast's probes of the hot set {@code ids} (hottest first, with their lookups per
   * second {@code rates}) against namespace {@code schemaHash}: the {@link #FORECAST_HEAD}
   * hottest checked one by one, the others through the fixed random sample of
   * {@link #sample} ({@link #FORECAST_SAMPLE} ids), each standing for its share of them
   * (pipelined {@code EXISTS}).
   *
   * @throws RedisException if Valkey cannot be read in time
   */
  List<OriginForecast.Probe> probes(String schemaHash, List<String> ids, List<Double> rates) {
    List<String> checked = forecastIds(schemaHash, ids);
    RedisClusterAsyncCommands<String, String> async = valkey.async();
    List<RedisFuture<Long>> exists = new ArrayList<>(checked.size());
    for (String id : checked) {
      exists.add(async.exists(keys.values(schemaHash).value(id)));
    }
    Set<String> present = new HashSet<>();
    for (int i = 0; i < checked.size(); i++) {
      if (await(exists.get(i)) > 0) {
        present.add(checked.get(i));
      }
    }
    return probes(ids, rates, checked, present::contains);
  }

  /**
   * The hot-set ids a forecast checks in namespace {@code schemaHash}: the
   * {@link #FORECAST_HEAD} hottest of {@code ids} (hottest first), then the fixed random sample
   * of {@link #sample} ({@link #FORECAST_SAMPLE} ids) of the rest.
   */
  public static List<String> forecastIds(String schemaHash, List<String> ids) {
    int head = Math.min(FORECAST_HEAD, ids.size());
    List<String> checked = new ArrayList<>(ids.subList(0, head));
    checked.addAll(sample(schemaHash, ids.subList(head, ids.size()), FORECAST_SAMPLE));
    return checked;
  }

  /**
   * The forecast's probes of the hot set {@code ids} (with their lookups per second
   * {@code rates}) from the {@code checked} ids of {@link #forecastIds}: the head one by one,
   * each sampled id standing for its share of the rest; {@code present} says which values the
   * namespace holds.
   */
  public static List<OriginForecast.Probe> probes(List<String> ids, List<Double> rates,
      List<String> checked, Predicate<String> present) {
    int head = Math.min(FORECAST_HEAD, ids.size());
    Map<String, Double> rest = new HashMap<>();
    for (int i = head; i < ids.size(); i++) {
      rest.put(ids.get(i), rates.get(i));
    }
    int sampled = checked.size() - head;
    double weight = sampled == 0 ? 1 : (double) (ids.size() - head) / sampled;
    List<OriginForecast.Probe> probes = new ArrayList<>(checked.size());
    for (int i = 0; i < checked.size(); i++) {
      String id = checked.get(i);
      probes.add(i < head ? new OriginForecast.Probe(id, rates.get(i), present.test(id), 1)
          : new OriginForecast.Probe(id, rest.get(id), present.test(id), weight));
    }
    return probes;
  }


  /**
   * What namespace {@code schemaHash} served per second over the {@link #TRAFFIC_BUCKETS}
   * complete 10-second buckets before {@code now} ({@code T:stats:<hash>:<bucket>}).
   *
   * @param requests lookups per second (L1 hits, L2 hits and misses)
   * @param hits lookups per second answered by L1 or L2
   * @param originLoads ids read from the origin per second (preloads included)
   */
  record Traffic(double requests, double hits, double originLoads) {

    static final Traffic NONE = new Traffic(0, 0, 0);

    Traffic plus(Traffic other) {
      return new Traffic(requests + other.requests, hits + other.hits,
          originLoads + other.originLoads);
    }
  }

  /** Complete buckets a {@link Traffic} is measured over: one minute. */
  static final int TRAFFIC_BUCKETS = 6;

  /**
   * The traffic of namespace {@code schemaHash} over the last {@link #TRAFFIC_BUCKETS} complete
   * buckets (the current one is still being flushed into).
   *
   * @throws RedisException if Valkey cannot be read in time
   */
  Traffic traffic(String schemaHash, Instant now) {
    long current = Math.floorDiv(now.getEpochSecond(), BUCKET_SECONDS) * BUCKET_SECONDS;
    RedisClusterAsyncCommands<String, String> async = valkey.async();
    List<RedisFuture<Map<String, String>>> buckets = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = TRAFFIC_BUCKETS; i >= 1; i--) {
      String key = keys.statsBucket(schemaHash, current - i * BUCKET_SECONDS);
      names.add(key);
      buckets.add(async.hgetall(key));
    }
    double hits = 0;
    double requests = 0;
    double loads = 0;
    for (int i = 0; i < buckets.size(); i++) {
      Map<String, String> counters = orIfWrongType(buckets.get(i), Map.of(), names.get(i));
      double bucketHits = (double) counter(counters, "l1Hits") + counter(counters, "l2Hits");
      hits += bucketHits;
      requests += bucketHits + counter(counters, "misses");
      loads += counter(counters, "originLoads");
    }
    double seconds = TRAFFIC_BUCKETS * BUCKET_SECONDS;
    return new Traffic(requests / seconds, hits / seconds, loads / seconds);
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
    return coverage(schemaHash, WrongType.naming(ids, () -> valkey.sync().lrange(ids, 0, -1)));
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
    RedisClusterAsyncCommands<String, String> async = valkey.async();
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
    String key = keys.keysWritten(schemaHash);
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

  /** A score as a script returns it: a decimal string, {@code inf} or {@code -inf}. */
  private static double score(String text) {
    return switch (text) {
      case "inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  private static long counter(Map<String, String> counters, String name) {
    return WarmJobs.number(counters.get(name));
  }
}
