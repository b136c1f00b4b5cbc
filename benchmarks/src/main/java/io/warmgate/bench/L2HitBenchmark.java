package io.warmgate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.bench.common.SyntheticDeals;
import io.warmgate.example.deal.Deal;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisServer;
import io.warmgate.valkey.ValkeyEndpoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * An L2 hit (L1 miss) of {@link TieredCache#get} against the floor it stands on: a raw Lettuce
 * {@code GET} round trip of the same key on the same local Redis, without decoding. With
 * {@code l2=cluster}, both read a Redis cluster of three primaries with a replica each, the
 * baseline through Lettuce's cluster client. The cache's
 * clock steps past the L1 TTL on every read, so no lookup is served from L1; L2 entries are given
 * TTLs long enough that no refresh-ahead starts during the run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class L2HitBenchmark {

  static final String STANDALONE = "standalone";
  static final String CLUSTER = "cluster";

  @Param("1024")
  int keys;

  /** {@value #STANDALONE} (one redis-server) or {@value #CLUSTER}. */
  @Param(STANDALONE)
  String l2;

  RedisServer server;
  RedisCluster nodes;
  String[] ids;
  byte[][] rawKeys;
  TieredCache<Deal> warmgate;
  AbstractRedisClient client;
  StatefulConnection<byte[], byte[]> connection;
  RedisClusterCommands<byte[], byte[]> lettuce;
  /** The cache's default payload codec: Smile with java.time support. */
  final ObjectReader dealReader = new ObjectMapper(new SmileFactory())
      .registerModule(new JavaTimeModule()).readerFor(Deal.class);

  @Setup(Level.Trial)
  public void setUp() {
    boolean cluster = CLUSTER.equals(l2);
    if (cluster) {
      nodes = RedisCluster.create();
      nodes.start();
    } else {
      server = RedisServer.create();
      server.start();
    }
    ids = SyntheticDeals.ids(keys);
    Duration longTtl = Duration.ofDays(100_000);
    warmgate = WarmGate.newBuilder(Deal.class, SyntheticDeals.origin())
        .cacheName("bench")
        .valkey(cluster ? ValkeyEndpoint.cluster(nodes.uris().toArray(String[]::new))
            : ValkeyEndpoint.standalone(server.uri()))
        .clock(new SteppingClock(Duration.ofSeconds(2).toMillis()))
        .l1Ttl(Duration.ofSeconds(1))
        .l2Ttl(longTtl)
        .maxStaleness(longTtl.multipliedBy(2))
        .l2Timeout(Duration.ofSeconds(1))
        .build();
    warmgate.getAll(List.of(ids));

    KeySpace keySpace = new KeySpace("bench", warmgate.schemaHash());
    rawKeys = new byte[keys][];
    for (int i = 0; i < keys; i++) {
      rawKeys[i] = keySpace.valueKey(ids[i]).getBytes(StandardCharsets.UTF_8);
    }
    if (cluster) {
      RedisClusterClient clusterClient = RedisClusterClient.create(
          nodes.uris().stream().map(RedisURI::create).toList());
      StatefulRedisClusterConnection<byte[], byte[]> c = clusterClient.connect(ByteArrayCodec.INSTANCE);
      client = clusterClient;
      connection = c;
      lettuce = c.sync();
    } else {
      RedisClient single = RedisClient.create(server.uri());
      StatefulRedisConnection<byte[], byte[]> c = single.connect(ByteArrayCodec.INSTANCE);
      client = single;
      connection = c;
      lettuce = c.sync();
    }
    for (byte[] key : rawKeys) {
      if (lettuce.get(key) == null) {
        throw new IllegalStateException("the cache did not write " + new String(key, StandardCharsets.UTF_8)
            + " to L2: the comparison would be meaningless");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    warmgate.close();
    connection.close();
    client.shutdown();
    if (nodes != null) {
      nodes.close();
    } else {
      server.close();
    }
  }

  /** Each thread walks the ids with its own stride so threads do not read in lockstep. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) (Thread.currentThread().getId() * 7919);

    int index(int length) {
      next = (next + 1) & (length - 1);
      return next;
    }
  }

  @Benchmark
  public byte[] lettuceGet(Cursor cursor) {
    return lettuce.get(rawKeys[cursor.index(rawKeys.length)]);
  }

  /**
   * The same GET plus what any cache must do with its reply before returning a value: check the
   * envelope and decode the Smile payload into a Deal (the cache's default codec). The floor for
   * the allocation of an L2 hit, which the raw GET of bytes is not.
   */
  @Benchmark
  public Deal lettuceGetAndDecode(Cursor cursor) throws IOException {
    Envelope envelope = Envelope.decode(lettuce.get(rawKeys[cursor.index(rawKeys.length)]),
        warmgate.schemaHash());
    return dealReader.readValue(envelope.payload());
  }

  @Benchmark
  public Deal warmgateGet(Cursor cursor) {
    return warmgate.get(ids[cursor.index(ids.length)]);
  }
}
