package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.fleet.FleetServices;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.registry.AgentInfo;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code WarmGate.fromConfig(...).build()} starts the fleet services; a plain builder does not. */
class FleetWiringIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");
  @RegisterExtension
  final RedisConnectionExtension valkey = new RedisConnectionExtension(redis);
  private RedisCommands<String, String> raw;

  @BeforeEach
  void connect() {
    raw = valkey.sync();
  }

  private WarmGateConfig config() {
    return WarmGateConfig.from(Map.of(
        "WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port(),
        "WARMGATE_L2_TIMEOUT", "500ms",
        "WARMGATE_POD_NAME", "deals-7d9f-x1",
        "WARMGATE_POD_NAMESPACE", "shop",
        "WARMGATE_POD_TEMPLATE_HASH", "7d9f"));
  }

  @Test
  void aCacheBuiltFromTheConfigurationRegistersCountsAndRecordsItsWrites() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    TieredCache<String> cache = WarmGate.fromConfig(config(), String.class, origin)
        .meterRegistry(meters).build();
    KeySpace keys = new KeySpace("deals", cache.schemaHash());
    try {
      await().atMost(Duration.ofSeconds(5)).until(() ->
          raw.hexists(keys.agentsKey(), "shop/deals-7d9f-x1"));
      AgentInfo me = AgentInfo.fromJson(raw.hget(keys.agentsKey(), "shop/deals-7d9f-x1"));
      assertThat(me.namespace()).isEqualTo("shop");
      assertThat(me.podTemplateHash()).isEqualTo("7d9f");
      assertThat(me.schemaHash()).isEqualTo(cache.schemaHash());
      assertThat(me.version()).isEqualTo(FleetServices.agentVersion());

      cache.getAll(List.of("a", "b", "nope"));
      cache.get("a");
      await().atMost(Duration.ofSeconds(5)).until(() ->
          Meters.count(meters, "warmgate.l2.writes") == 3);
      assertThat(Meters.count(meters, "warmgate.origin.notfound")).isEqualTo(1);
      // A background fill (the preload) is counted like lookups: its reads and its keys.
      assertThat(cache.fillL2(List.of("a", "c", "d"))).isEqualTo(3);
    } finally {
      cache.close(); // the final flush sends what the periodic ones have not
    }
    assertThat(raw.hexists(keys.agentsKey(), "shop/deals-7d9f-x1")).isFalse();
    assertThat(raw.hgetall(keys.statsKey())).containsEntry("l1Hits", "1")
        .containsEntry("misses", "3").containsEntry("originLoads", "5")
        .containsEntry("l2Writes", "5").containsEntry("notFound", "3");
    assertThat(raw.pfcount(keys.keysWrittenKey())).isEqualTo(5);
    assertThat(raw.zrange(keys.hotKey(), 0, -1)).isSubsetOf("a", "b", "nope");
  }

  @Test
  void theHotSamplePeriodOfTheConfigurationReachesTheHotSet() {
    Map<String, String> env = Map.of("WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port(),
        "WARMGATE_HOT_SAMPLE_PERIOD", "1");
    TieredCache<String> cache = WarmGate.fromConfig(WarmGateConfig.from(env), String.class, origin)
        .build();
    KeySpace keys = new KeySpace("deals", cache.schemaHash());
    try {
      // The fleet services connect in the background, and the final flush needs that connection:
      // registered means connected (closed before that, as on a loaded machine, nothing is sent).
      await().atMost(Duration.ofSeconds(10)).until(() -> raw.hlen(keys.agentsKey()) == 1);
      cache.get("a");
      cache.get("b");
      cache.get("b");
    } finally {
      cache.close(); // the final flush sends the samples
    }
    // Every lookup sampled: each id's score is its lookups (times 2^(t − landmark) / halfLife,
    // a hair above 1 for a flush right after the landmark was set).
    assertThat(raw.hget(keys.hotMetaKey(), "samplePeriod")).isEqualTo("1");
    assertThat(raw.zscore(keys.hotKey(), "a")).isCloseTo(1.0, within(0.01));
    assertThat(raw.zscore(keys.hotKey(), "b")).isCloseTo(2.0, within(0.02));
  }

  @Test
  void aPlainBuilderOrFleetServicesFalseStartsNothing() {
    try (TieredCache<String> plain = WarmGate.newBuilder(String.class, origin).cacheName("deals")
            .valkeyUri(redis.uri()).build();
        TieredCache<String> off = WarmGate.fromConfig(config(), String.class, origin)
            .fleetServices(false).build()) {
      plain.get("a");
      off.get("b");
      // The services would register at once; give them a moment to show up if they ran.
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1))
          .until(() -> raw.keys("{wg:deals}*").isEmpty());
    }
  }

  @Test
  void fleetServicesNeedValkey() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).cacheName("deals")
        .fleetServices(true).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fleetServices(true) needs Valkey")
        .hasMessageContaining(WarmGateConfig.VALKEY_ADDRESSES);
  }
}
