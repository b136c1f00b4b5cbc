package io.warmgate.bench.operator;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.agent.registry.AgentInfo;
import io.warmgate.agent.registry.AgentRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * Writes what the cache agents of one cache write into Valkey (docs/valkey-layout.md), with the
 * agent library's own {@link KeySpace}, {@link AgentRegistry} and {@link Envelope}: registry
 * heartbeats, the hot set and value keys. Not thread-safe.
 */
final class CacheAgentsPart implements AutoCloseable {

  private static final Duration L2_TTL = Duration.ofMinutes(4);
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> strings;
  private final StatefulRedisConnection<String, byte[]> values;

  CacheAgentsPart(String redisUri) {
    client = RedisClient.create(redisUri);
    strings = client.connect();
    values = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
  }

  /**
   * Heartbeats {@code count} agents of ReplicaSet {@code podHash} in {@code namespace} reading
   * {@code schemaHash} (the gate only counts agents of its policy's namespace).
   */
  void register(String namespace, String cache, String podHash, String schemaHash, int count) {
    KeySpace keys = new KeySpace(cache, schemaHash);
    long now = System.currentTimeMillis();
    for (int i = 0; i < count; i++) {
      AgentInfo agent = new AgentInfo(cache + "-" + podHash + "-" + i, namespace, podHash,
          schemaHash, "bench", now, 0);
      new AgentRegistry(ValkeyConnection.wrap(strings), keys, agent, InstantSource.system()).heartbeat();
    }
  }

  /** Makes ids {@code id-0} .. {@code id-(n-1)} the hot set of {@code cache}, hottest first. */
  List<String> hotSet(String cache, int n) {
    List<String> ids = IntStream.range(0, n).mapToObj(i -> "id-" + i).toList();
    List<ScoredValue<String>> scored = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      scored.add(ScoredValue.just(n - i, ids.get(i)));
    }
    strings.sync().zadd(new KeySpace(cache, "0").hotKey(), scored.toArray(new ScoredValue[0]));
    return ids;
  }

  /**
   * Writes the value envelopes of {@code ids} into namespace {@code schemaHash}, pipelined, and
   * returns once Valkey acknowledged every write.
   */
  void fill(String cache, String schemaHash, List<String> ids) {
    KeySpace keys = new KeySpace(cache, schemaHash);
    RedisAsyncCommands<String, byte[]> async = values.async();
    List<RedisFuture<?>> writes = new ArrayList<>(ids.size() + 1);
    long now = Instant.now().toEpochMilli();
    for (String id : ids) {
      byte[] envelope = Envelope.found(schemaHash, now, id.getBytes()).encode();
      writes.add(async.set(keys.valueKey(id), envelope, SetArgs.Builder.px(L2_TTL.toMillis())));
    }
    writes.add(strings.async().pfadd(keys.keysWrittenKey(), ids.toArray(new String[0])));
    if (!LettuceFutures.awaitAll(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS,
        writes.toArray(new RedisFuture[0]))) {
      throw new IllegalStateException("Valkey did not acknowledge " + ids.size()
          + " value writes within " + WRITE_TIMEOUT);
    }
  }

  /** Whether the operator opened the warm job of namespace {@code schemaHash}. */
  boolean hasWarmJob(String cache, String schemaHash) {
    return strings.sync().exists(new KeySpace(cache, schemaHash).warmJobKey()) == 1;
  }

  @Override
  public void close() {
    values.close();
    strings.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
