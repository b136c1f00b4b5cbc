package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.stream.StreamKeys;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An operator reshards the live cluster while a response streams: the stream's slot moves to
 * another primary between two chunks. The reading hub, whose blocking {@code XREAD} ran on the old
 * primary, follows the slot to the new one and its client gets every chunk once, without an error
 * and without a second upstream call.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SlotMigrationIT {

  /** A cluster of its own: resharding changes which primary serves which slots. */
  @RegisterExtension
  static final RedisClusterExtension cluster = new RedisClusterExtension();

  private static final String TEMPLATE = "reshard";
  /** {@code redis-cli --cluster reshard} takes each source's lowest slots: this many in all. */
  private static final int MOVED_SLOTS = 300;

  @Test
  void aHubFollowsItsStreamToTheNewPrimaryWhenItsSlotMovesMidStream() throws Exception {
    List<RedisClusterNode> before = layout();
    Map<String, ?> shared = sharedMovedByResharding(before);
    int slot = slotOf(shared);
    RedisClusterNode owner = primaryOf(before, slot);
    RedisCluster.Node target = cluster.primaries().stream()
        .filter(n -> !n.id().equals(owner.getNodeId())).findFirst().orElseThrow();

    try (TestUpstream upstream = TestUpstream.start();
        SseClient client = new SseClient();
        GatewayFleet fleet = GatewayFleet.start(1, GatewayFleet.env(clusterEnv(), upstream))) {
      CompletableFuture<Void> gate = new CompletableFuture<>();
      upstream.script(TEMPLATE, TestUpstream.Script.chunks(8, Duration.ofMillis(5))
          .gatedAt(3, gate, false));
      String body = SseClient.body(shared, Map.of());
      try (SseClient.Open stream = client.open(fleet.port(0), TEMPLATE, body, null)) {
        for (int i = 0; i < 3; i++) {
          assertThat(stream.next().data()).isEqualTo("chunk-" + i);
        }
        assertThat(readersOn(owner.getUri().getPort())).isEqualTo(1);

        cluster.moveSlots(MOVED_SLOTS, target);

        assertThat(primaryOf(layout(), slot).getNodeId()).isEqualTo(target.id());
        // The hub reads on from the new primary before the rest of the response exists.
        await().atMost(Duration.ofSeconds(30)).until(() -> readersOn(target.port()) == 1);
        gate.complete(null);
        List<SseEvent> rest = stream.rest();
        assertThat(rest.stream().filter(SseEvent::chunk).map(SseEvent::data))
            .containsExactly("chunk-3", "chunk-4", "chunk-5", "chunk-6", "chunk-7");
        assertThat(rest.get(rest.size() - 1).event()).isEqualTo("done");
      }
      assertThat(upstream.calls(TEMPLATE)).isEqualTo(1);
      assertThat(fleet.get(0).metrics().takeovers()).isZero();
    }
  }

  private static Map<String, String> clusterEnv() {
    return Map.of(GatewayConfig.VALKEY_MODE, "cluster",
        GatewayConfig.VALKEY_ADDRESSES, String.join(",", cluster.addresses().subList(0, 3)));
  }

  /**
   * A shared part whose keys' slot is among the first 20 its primary serves: moving
   * {@value #MOVED_SLOTS} slots to another primary takes about half of them from each of the two
   * others, lowest first, so this slot goes with them.
   */
  private static Map<String, ?> sharedMovedByResharding(List<RedisClusterNode> layout) {
    for (int i = 0; ; i++) {
      Map<String, ?> shared = Map.of("q", "reshard-" + i);
      int slot = slotOf(shared);
      List<Integer> slots = primaryOf(layout, slot).getSlots();
      if (slots.indexOf(slot) < 20) {
        return shared;
      }
    }
  }

  private static int slotOf(Map<String, ?> shared) {
    StreamKeys keys = StreamKeys.of(CoalescingKey.of(TEMPLATE, new ObjectMapper().valueToTree(shared)));
    return SlotHash.getSlot(keys.state());
  }

  private static RedisClusterNode primaryOf(List<RedisClusterNode> layout, int slot) {
    return layout.stream().filter(n -> n.getRole().isUpstream() && n.hasSlot(slot))
        .findFirst().orElseThrow(() -> new AssertionError("no primary serves slot " + slot));
  }

  /** The nodes with their slots, as the first node sees them. */
  private static List<RedisClusterNode> layout() {
    return onNode(cluster.primaries().get(0).port(),
        redis -> ClusterPartitionParser.parse(redis.clusterNodes()).getPartitions());
  }

  /** The clients of the node on {@code port} whose last command was a (blocking) XREAD. */
  private static long readersOn(int port) {
    return onNode(port, redis -> redis.clientList().lines()
        .filter(line -> line.contains(" cmd=xread")).count());
  }

  private static <T> T onNode(int port, Function<RedisCommands<String, String>, T> command) {
    RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return command.apply(connection.sync());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
