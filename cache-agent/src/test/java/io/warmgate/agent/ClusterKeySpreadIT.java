package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.SlotHash;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where one cache's keys land on a real Redis cluster: value keys over every slot and primary,
 * the control keys of {@code docs/valkey-layout.md} in the one slot of their {@code {wg:<cache>}}
 * hash tag, as the server itself hashes them ({@code CLUSTER KEYSLOT}).
 */
class ClusterKeySpreadIT {

  private static final int IDS = 10_000;

  @RegisterExtension
  final L2Extension valkey = new L2Extension(L2Mode.CLUSTER);

  private static Origin<String> values() {
    return ids -> {
      Map<String, String> out = new HashMap<>();
      ids.forEach(id -> out.put(id, "v-" + id));
      return out;
    };
  }

  @Test
  void tenThousandValueKeysSpreadOverTheSlotsAndThePrimaries() {
    List<String> ids = IntStream.rangeClosed(1, IDS).mapToObj(i -> String.format("deal-%06d", i))
        .toList();
    try (TieredCache<String> cache = valkey.configure(WarmGate.newBuilder(String.class, values()))
        .cacheName("deals").l2Timeout(Duration.ofSeconds(1)).build()) {
      for (int i = 0; i < IDS; i += 1_000) {
        assertThat(cache.fillL2(ids.subList(i, i + 1_000))).isEqualTo(1_000);
      }
      KeySpace keys = new KeySpace(cache.name(), cache.schemaHash());
      Set<Integer> slots = new HashSet<>();
      for (String id : ids) {
        slots.add(SlotHash.getSlot(keys.valueKey(id)));
      }
      for (String id : ids.subList(0, 100)) {
        assertThat(valkey.strings().clusterKeyslot(keys.valueKey(id)))
            .as("the server hashes %s as the client does", id)
            .isEqualTo(SlotHash.getSlot(keys.valueKey(id)));
      }
      // Uniform hashing of n keys into s slots fills s(1 - e^(-n/s)) of them.
      double expected = RedisCluster.SLOTS * (1 - Math.exp(-(double) IDS / RedisCluster.SLOTS));
      Map<RedisCluster.Node, Long> perPrimary = valkey.cluster().keysPerPrimary();
      StringBuilder shares = new StringBuilder();
      perPrimary.forEach((node, n) -> shares.append(String.format(" %d: %d keys (%.1f %%) on %d slots;",
          node.port(), n, 100.0 * n / IDS, node.slots())));
      System.out.printf("%,d ids -> value keys in %,d of %,d slots (%.1f %%; uniform hashing "
              + "expects %,.0f); per primary:%s%n", IDS, slots.size(), RedisCluster.SLOTS,
          100.0 * slots.size() / RedisCluster.SLOTS, expected, shares);

      assertThat((double) slots.size()).isBetween(0.97 * expected, 1.03 * expected);
      assertThat(perPrimary.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(IDS);
      for (Map.Entry<RedisCluster.Node, Long> e : perPrimary.entrySet()) {
        double slotShare = (double) e.getKey().slots() / RedisCluster.SLOTS;
        assertThat((double) e.getValue() / IDS).as("share of keys on %s", e.getKey().address())
            .isBetween(slotShare - 0.03, slotShare + 0.03);
      }
    }
  }

  @Test
  void theFleetServicesWriteEveryControlKeyIntoTheSlotOfTheCacheTag() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (TieredCache<String> cache = valkey.configure(WarmGate.newBuilder(String.class, values()))
        .cacheName("deals").l2Timeout(Duration.ofSeconds(1)).meterRegistry(meters)
        .podName("deals-7d9f-a")
        .fleetServices(f -> f.flushInterval(Duration.ofMillis(100))
            .hotKeys(new HotKeys(1, 1024, 100, Duration.ofMinutes(10))))
        .build()) {
      cache.get("a");
      cache.get("b");
      KeySpace keys = new KeySpace(cache.name(), cache.schemaHash());
      List<String> expected = List.of(keys.agentsKey(), keys.statsKey(), keys.keysWrittenKey(),
          keys.hotKey(), keys.hotLandmarkKey(), keys.hotMetaKey());
      await().atMost(Duration.ofSeconds(10)).until(() ->
          valkey.strings().exists(expected.toArray(String[]::new)) == expected.size());

      int slot = valkey.strings().clusterKeyslot(keys.controlTag()).intValue();
      List<String> written = valkey.strings().keys(keys.controlTag() + "*");
      System.out.printf("control keys of cache 'deals' in slot %d: %s%n", slot, written);
      assertThat(written).containsAll(expected).anyMatch(k -> k.startsWith(keys.statsKey() + ":"));
      for (String key : written) {
        assertThat(valkey.strings().clusterKeyslot(key)).as(key).isEqualTo(slot);
      }
      for (String key : List.of(keys.warmJobKey(), keys.warmIdsKey(), keys.warmLockKey())) {
        assertThat(valkey.strings().clusterKeyslot(key)).as(key).isEqualTo(slot);
      }
      assertThat(SlotHash.getSlot(keys.valueKey("a"))).as("a value key carries no tag")
          .isNotEqualTo(slot);
    }
  }
}
