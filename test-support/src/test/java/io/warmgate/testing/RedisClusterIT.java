package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisClusterIT {

  @RegisterExtension
  static final RedisClusterExtension cluster = new RedisClusterExtension();

  private RedisClusterClient client;
  private StatefulRedisClusterConnection<String, String> connection;
  private RedisAdvancedClusterCommands<String, String> redis;

  @BeforeEach
  void connect() {
    client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
    client.setOptions(ClusterClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
            .refreshTriggersReconnectAttempts(1)
            .enablePeriodicRefresh(Duration.ofSeconds(1))
            .build())
        .build());
    connection = client.connect();
    redis = connection.sync();
    redis.flushall();
  }

  @AfterEach
  void disconnect() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  @Test
  void threePrimariesAndThreeReplicasServeEverySlot() {
    List<RedisCluster.Node> nodes = cluster.nodes();

    assertThat(nodes).hasSize(6);
    assertThat(cluster.primaries()).hasSize(3).allSatisfy(p -> assertThat(p.slots()).isPositive());
    assertThat(cluster.primaries().stream().mapToInt(RedisCluster.Node::slots).sum())
        .isEqualTo(RedisCluster.SLOTS);
    assertThat(nodes.stream().filter(n -> !n.primary()))
        .extracting(RedisCluster.Node::primaryId)
        .containsExactlyInAnyOrderElementsOf(cluster.primaries().stream()
            .map(RedisCluster.Node::id).toList());
    for (int i = 0; i < 300; i++) {
      redis.set("key-" + i, "v" + i);
    }
    assertThat(redis.get("key-299")).isEqualTo("v299");
    assertThat(cluster.keysPerPrimary().values()).as("keys spread over the primaries")
        .allSatisfy(n -> assertThat(n).isPositive());
  }

  @Test
  void aKilledPrimaryIsReplacedByItsReplicaAndRejoinsAsAReplica() {
    RedisCluster.Node victim = cluster.primaries().get(0);
    RedisCluster.Node replica = cluster.nodes().stream()
        .filter(n -> victim.id().equals(n.primaryId())).findFirst().orElseThrow();

    cluster.kill(victim);
    Duration failover = cluster.awaitHealthy(Duration.ofSeconds(30));
    System.out.printf("replica %d took over from %d in %d ms%n", replica.port(), victim.port(),
        failover.toMillis());

    assertThat(cluster.primaries()).extracting(RedisCluster.Node::port)
        .contains(replica.port()).doesNotContain(victim.port());
    // The client finds the new primary at its next topology refresh.
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> "OK".equals(redis.set("after-failover", "ok")));

    cluster.restart(victim);
    assertThat(cluster.nodes()).filteredOn(n -> n.port() == victim.port()).singleElement()
        .satisfies(n -> assertThat(n.primaryId()).isEqualTo(replica.id()));
  }

  @Test
  void movingAThirdOfTheSlotsKeepsEveryKey() {
    for (int i = 0; i < 1_000; i++) {
      redis.set("key-" + i, "v" + i);
    }
    RedisCluster.Node target = cluster.primaries().get(0);

    Duration took = cluster.moveSlots(RedisCluster.SLOTS / 3, target);
    System.out.printf("moved %d slots in %d ms%n", RedisCluster.SLOTS / 3, took.toMillis());

    assertThat(cluster.primaries()).filteredOn(n -> n.port() == target.port()).singleElement()
        .satisfies(n -> assertThat(n.slots()).isEqualTo(target.slots() + RedisCluster.SLOTS / 3));
    for (int i = 0; i < 1_000; i++) {
      assertThat(redis.get("key-" + i)).isEqualTo("v" + i);
    }
  }

  @Test
  void stopAndStartBringTheWholeClusterBackEmpty() {
    redis.set("k", "v");
    assertThat(redis.dbsize()).isEqualTo(1);

    cluster.stop();
    assertThat(cluster.isRunning()).isFalse();
    cluster.start();

    assertThat(cluster.primaries()).hasSize(3);
    assertThat(cluster.keysPerPrimary().values()).allSatisfy(n -> assertThat(n).isZero());
  }
}
