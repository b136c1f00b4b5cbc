package io.warmgate.operator.gate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.contract.valkey.AgentEntry;
import io.warmgate.contract.valkey.ControlKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Writes what cache agents write into Valkey, following docs/valkey-layout.md: registry
 * heartbeats, the hot set, value keys, stats buckets. Opens a fresh connection per call so that
 * it survives Redis restarts.
 */
public final class FakeAgents {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String uri;
  private final String cache;
  private final String namespace;
  private final ControlKeys keys;

  /** Agents of cache {@code cache} whose entries name no namespace, as older agents write them. */
  public FakeAgents(String uri, String cache) {
    this(uri, cache, null);
  }

  /** Agents of cache {@code cache} in pods of {@code namespace} (null: entries without one). */
  public FakeAgents(String uri, String cache, String namespace) {
    this.uri = uri;
    this.cache = cache;
    this.namespace = namespace;
    this.keys = new ControlKeys(cache);
  }

  /** Heartbeats pod {@code pod} of ReplicaSet hash {@code podHash} with {@code schemaHash}. */
  public void register(String pod, String podHash, String schemaHash) {
    long now = Instant.now().toEpochMilli();
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put(AgentEntry.POD, pod);
    if (namespace != null) {
      entry.put(AgentEntry.NAMESPACE, namespace);
    }
    entry.put(AgentEntry.POD_TEMPLATE_HASH, podHash);
    entry.put(AgentEntry.SCHEMA_HASH, schemaHash);
    entry.put(AgentEntry.VERSION, "test");
    entry.put(AgentEntry.STARTED_AT, now);
    entry.put(AgentEntry.EXPIRES_AT, now + Duration.ofMinutes(10).toMillis());
    run(r -> r.hset(keys.agents(), pod, json(entry)));
  }

  /** Makes ids {@code id-0} .. {@code id-(n-1)} the hot set, {@code id-0} hottest. */
  public List<String> hotSet(int n) {
    List<String> ids = IntStream.range(0, n).mapToObj(i -> "id-" + i).toList();
    run(r -> {
      for (int i = 0; i < n; i++) {
        r.zadd(keys.hot(), n - i, ids.get(i));
      }
      return null;
    });
    return ids;
  }

  /** Half-life of the hot-set scores {@link #hotSetAt} writes, the agents' default. */
  static final Duration HALF_LIFE = Duration.ofMinutes(10);

  /**
   * Makes ids {@code id-0} .. {@code id-(n-1)} the hot set with the scores, landmark and meta of
   * agents that recorded every lookup (sample period 1) of id {@code i} at {@code perSecond[i]}
   * lookups a second for the last hour: the forward-decayed counts of docs/valkey-layout.md.
   */
  public List<String> hotSetAt(double... perSecond) {
    long now = Instant.now().toEpochMilli();
    long since = now - Duration.ofHours(1).toMillis();
    double h = HALF_LIFE.toMillis();
    // Landmark = since: a lookup at t adds 2^((t − since) / h).
    double exposure = h / Math.log(2) * (Math.pow(2, (now - since) / h) - 1);
    List<String> ids = IntStream.range(0, perSecond.length).mapToObj(i -> "id-" + i).toList();
    run(r -> {
      for (int i = 0; i < perSecond.length; i++) {
        r.zadd(keys.hot(), perSecond[i] / 1000 * exposure, ids.get(i));
      }
      r.set(keys.hotLandmark(), Long.toString(since));
      r.hset(keys.hotMeta(), Map.of("since", Long.toString(since),
          "halfLifeMs", Long.toString(HALF_LIFE.toMillis()), "samplePeriod", "1"));
      return null;
    });
    return ids;
  }

  /**
   * Fills the 10-second stats buckets of {@code schemaHash} of the last two minutes with
   * {@code requests} lookups a second, {@code hitRatio} of them hits, and {@code originLoads}
   * origin reads a second: the steady traffic the forecast reads.
   */
  public void traffic(String schemaHash, double requests, double hitRatio, double originLoads) {
    long current = Instant.now().getEpochSecond() / 10 * 10;
    run(r -> {
      for (long bucket = current - 120; bucket <= current + 20; bucket += 10) {
        String key = keys.statsBucket(schemaHash, bucket);
        long hits = Math.round(requests * hitRatio * 10);
        r.hset(key, Map.of("l1Hits", Long.toString(hits), "l2Hits", "0",
            "misses", Long.toString(Math.round(requests * 10) - hits),
            "originLoads", Long.toString(Math.round(originLoads * 10))));
      }
      return null;
    });
  }

  /** Writes the value keys of {@code ids} into namespace {@code schemaHash}. */
  public void writeValues(String schemaHash, List<String> ids) {
    run(r -> {
      for (String id : ids) {
        r.psetex(keys.values(schemaHash).value(id), Duration.ofMinutes(4).toMillis(), "envelope");
        r.pfadd(keys.keysWritten(schemaHash), id);
      }
      return null;
    });
  }

  /** Adds counters to the current 10-second stats bucket of {@code schemaHash}. */
  public void stats(String schemaHash, long l1Hits, long l2Hits, long misses) {
    long bucket = Instant.now().getEpochSecond() / 10 * 10;
    String key = keys.statsBucket(schemaHash, bucket);
    run(r -> {
      r.hincrby(key, "l1Hits", l1Hits);
      r.hincrby(key, "l2Hits", l2Hits);
      r.hincrby(key, "misses", misses);
      return null;
    });
  }

  /** The warm job hash of {@code schemaHash}; empty when none. */
  public Map<String, String> warmJob(String schemaHash) {
    return run(r -> r.hgetall(keys.warmJob(schemaHash)));
  }

  /** The ids list of the warm job of {@code schemaHash}. */
  public List<String> warmIds(String schemaHash) {
    return run(r -> r.lrange(keys.warmIds(schemaHash), 0, -1));
  }

  /**
   * The coverage the gate measures in Preload mode: percent of the warm job's ids of
   * {@code schemaHash} whose value key exists; 0 without a job.
   */
  public double coverage(String schemaHash) {
    return run(r -> {
      List<String> ids = r.lrange(keys.warmIds(schemaHash), 0, -1);
      if (ids.isEmpty()) {
        return 0.0;
      }
      long present = r.exists(ids.stream().map(id -> keys.values(schemaHash).value(id))
          .toArray(String[]::new));
      return 100.0 * present / ids.size();
    });
  }

  /** Updates fields of the warm job, as the preloading agent does. */
  public void updateWarmJob(String schemaHash, Map<String, String> fields) {
    run(r -> r.hset(keys.warmJob(schemaHash), fields));
  }

  public String cache() {
    return cache;
  }

  /** The keys of the cache, to plant what no agent would write. */
  public ControlKeys keys() {
    return keys;
  }

  /** Runs {@code work} on a plain connection, to plant what no agent would write. */
  public void raw(Consumer<RedisCommands<String, String>> work) {
    run(r -> {
      work.accept(r);
      return null;
    });
  }

  private <T> T run(Function<RedisCommands<String, String>, T> work) {
    RedisClient client = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return work.apply(connection.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
