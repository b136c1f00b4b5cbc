package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code WARMGATE_VALKEY_READ_FROM=replica-preferred} on a real cluster: lookups' reads go to the
 * replicas, while the fill lease and its look, refresh locks and writes stay on the primaries.
 */
class ReplicaReadsIT {

  @RegisterExtension
  final L2Extension valkey = new L2Extension(L2Mode.CLUSTER);

  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");
  private final List<TieredCache<?>> opened = new ArrayList<>();
  private final List<RedisClient> clients = new ArrayList<>();
  private final Map<RedisCluster.Node, StatefulRedisConnection<String, String>> nodes =
      new HashMap<>();

  @BeforeEach
  void connectToEveryNode() {
    for (RedisCluster.Node node : valkey.cluster().nodes()) {
      RedisClient client = RedisClient.create("redis://" + node.address());
      clients.add(client);
      StatefulRedisConnection<String, String> c = client.connect();
      if (!node.primary()) {
        c.sync().readOnly(); // else a replica redirects key commands to its primary
      }
      c.sync().configResetstat();
      nodes.put(node, c);
    }
  }

  @AfterEach
  void close() {
    origin.release();
    opened.forEach(TieredCache::close);
    nodes.values().forEach(StatefulRedisConnection::close);
    clients.forEach(RedisClient::shutdown);
  }

  private TieredCache<String> pod(String name, SimpleMeterRegistry meters) {
    TieredCache<String> cache = WarmGate.newBuilder(String.class, origin).cacheName("deals")
        .valkey(valkey.endpoint().withReadFrom(ValkeyEndpoint.ReadFrom.REPLICA_PREFERRED))
        .podName(name).meterRegistry(meters).l2Timeout(Duration.ofSeconds(1))
        .fillWait(Duration.ofSeconds(5)).build();
    opened.add(cache);
    return cache;
  }

  /** Calls of {@code command} on the primaries and on the replicas. */
  private long[] calls(String command) {
    long[] calls = new long[2];
    nodes.forEach((node, c) -> {
      for (String line : c.sync().info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_" + command + ":")) {
          String rest = line.substring(line.indexOf("calls=") + 6);
          calls[node.primary() ? 0 : 1] += Long.parseLong(rest.substring(0, rest.indexOf(',')));
        }
      }
    });
    return calls;
  }

  /**
   * Whether the replica behind {@code c} holds {@code key}; a replica of another primary answers
   * {@code MOVED} (its READONLY mode covers only its own primary's slots), so it does not.
   */
  private static boolean holds(StatefulRedisConnection<String, String> c, String key) {
    try {
      return c.sync().exists(key) == 1;
    } catch (RedisCommandExecutionException e) {
      if (String.valueOf(e.getMessage()).startsWith("MOVED")) {
        return false;
      }
      throw e;
    }
  }

  @Test
  void lookupsReadReplicasAndTheFillLeaseStaysOnThePrimaries() {
    SimpleMeterRegistry metersA = new SimpleMeterRegistry();
    SimpleMeterRegistry metersB = new SimpleMeterRegistry();
    TieredCache<String> a = pod("a", metersA);
    TieredCache<String> b = pod("b", metersB);

    // Both miss "a" together: one loads it under the lease, the other waits for its value.
    origin.block();
    CompletableFuture<String> first = a.getAsync("a");
    await().atMost(Duration.ofSeconds(5)).until(() -> origin.calls() == 1);
    CompletableFuture<String> second = b.getAsync("a");
    await().atMost(Duration.ofSeconds(5)).until(() -> calls("set")[0] >= 2); // both leases tried
    origin.release();
    assertThat(first.join()).isEqualTo("A");
    assertThat(second.join()).isEqualTo("A");
    assertThat(origin.calls()).as("one origin read for both pods").isEqualTo(1);
    assertThat(Meters.count(metersB, "warmgate.fill.lease", "outcome", "waited")).isEqualTo(1);
    assertThat(calls("mget")[1]).as("the lease's looks were not sent to replicas").isZero();

    // A third pod's lookup of "a" is answered by a replica once it has the value.
    String key = new KeySpace("deals", a.schemaHash()).valueKey("a");
    await().atMost(Duration.ofSeconds(5)).until(() -> nodes.entrySet().stream()
        .filter(e -> !e.getKey().primary())
        .anyMatch(e -> holds(e.getValue(), key)));
    long[] getsBefore = calls("get");
    SimpleMeterRegistry metersC = new SimpleMeterRegistry();
    assertThat(pod("c", metersC).get("a")).isEqualTo("A");
    long[] gets = calls("get");
    System.out.printf("GETs of the lookup: primaries %d, replicas %d%n",
        gets[0] - getsBefore[0], gets[1] - getsBefore[1]);
    assertThat(gets[1] - getsBefore[1]).as("GETs on replicas").isEqualTo(1);
    assertThat(gets[0] - getsBefore[0]).as("GETs on primaries").isZero();
    assertThat(Meters.count(metersC, "warmgate.cache.gets", "tier", "l2", "result", "hit"))
        .isEqualTo(1);
    assertThat(origin.calls()).isEqualTo(1);
  }
}
