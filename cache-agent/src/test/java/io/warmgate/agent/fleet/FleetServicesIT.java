package io.warmgate.agent.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.CountingOrigin;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmGateConfig;
import io.warmgate.agent.WarmableCaches;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.registry.AgentInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** All services of one agent, started from its configuration, on a redis-server and a Redis cluster. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class FleetServicesIT {

  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B")
      .put("c", "C");
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  @RegisterExtension
  final L2Extension valkey;
  private RedisClusterCommands<String, String> raw;
  private final List<TieredCache<?>> opened = new ArrayList<>();

  FleetServicesIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void connect() {
    raw = valkey.strings();
  }

  @AfterEach
  void close() {
    opened.forEach(TieredCache::close); // idempotent: those a test closed stay closed
  }

  private WarmGateConfig config(String pod, String templateHash) {
    Map<String, String> env = new HashMap<>(valkey.env());
    env.putAll(Map.of(
        "WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_L2_TIMEOUT", "500ms",
        "WARMGATE_POD_NAME", pod,
        "WARMGATE_POD_NAMESPACE", "shop",
        "WARMGATE_POD_TEMPLATE_HASH", templateHash));
    return WarmGateConfig.from(env);
  }

  private TieredCache<String> start(WarmGateConfig config) {
    TieredCache<String> started = WarmGate.fromConfig(config, String.class, origin)
        .meterRegistry(meters)
        .fleetServices(fleet -> {
          fleet.hotKeys(new HotKeys(1, 1024, 100, Duration.ofMinutes(10)));
          fleet.heartbeatInterval = Duration.ofMillis(100);
          fleet.flushInterval = Duration.ofMillis(100);
          fleet.pollInterval = Duration.ofMillis(50);
          return fleet;
        })
        .build();
    opened.add(started);
    return started;
  }

  private AgentInfo entry(String pod) {
    String json = raw.hget("{wg:deals}:agents", "shop/" + pod);
    return json == null ? null : AgentInfo.fromJson(json);
  }

  @Test
  void startsEveryServiceFromTheConfigurationAndStopsThemOnClose() {
    TieredCache<String> cache = start(config("deals-7d9f-x1", "7d9f"));
    KeySpace keys = new KeySpace("deals", cache.schemaHash());

    await().atMost(Duration.ofSeconds(5)).until(() -> entry("deals-7d9f-x1") != null);
    AgentInfo me = entry("deals-7d9f-x1");
    assertThat(me.namespace()).isEqualTo("shop");
    assertThat(me.podTemplateHash()).isEqualTo("7d9f");
    assertThat(me.schemaHash()).isEqualTo(cache.schemaHash());
    assertThat(me.version()).isEqualTo(FleetServices.agentVersion());

    cache.get("a");
    cache.get("a");
    cache.getAll(List.of("b", "c"));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(raw.hget(keys.statsKey(), "l1Hits")).isEqualTo("1");
      assertThat(raw.hget(keys.statsKey(), "originLoads")).isEqualTo("3");
      assertThat(raw.zrevrange(keys.hotKey(), 0, 0)).containsExactly("a"); // 2 lookups, b and c 1
      assertThat(raw.zrevrange(keys.hotKey(), 1, -1)).containsExactlyInAnyOrder("b", "c");
    });

    raw.rpush(keys.warmIdsKey(), "a", "b", "c");
    raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "3", "rate", "100",
        "batchSize", "2"));
    await().atMost(Duration.ofSeconds(5)).until(() ->
        "Done".equals(raw.hget(keys.warmJobKey(), "state")));
    assertThat(raw.hget(keys.warmJobKey(), "owner")).isEqualTo("deals-7d9f-x1");

    cache.get("b"); // counted after the last periodic flush, sent by the final one
    cache.close();
    assertThat(entry("deals-7d9f-x1")).isNull();
    // 1 before the job and 1 just now: the preload fills L2 without lookups, so no L1 hit.
    assertThat(raw.hget(keys.statsKey(), "l1Hits")).isEqualTo("2");
    assertThatThrownBy(() -> cache.get("a")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void twoPodsOfDifferentTemplateHashesAreBothRegisteredAndTheStoppedOneDisappears() {
    TieredCache<String> stable = start(config("deals-7d9f-x1", "7d9f"));
    TieredCache<String> canary = start(config("deals-5c4b-y1", "5c4b"));
    await().atMost(Duration.ofSeconds(5)).until(() ->
        entry("deals-7d9f-x1") != null && entry("deals-5c4b-y1") != null);
    assertThat(entry("deals-5c4b-y1").podTemplateHash()).isEqualTo("5c4b");

    canary.close();
    assertThat(raw.hkeys("{wg:deals}:agents")).containsExactly("shop/deals-7d9f-x1");
    stable.close();
    assertThat(raw.hkeys("{wg:deals}:agents")).isEmpty();
  }

  @Test
  void anUnreachableValkeyDoesNotFailTheStartAndTheServicesConnectWhenItIsBack() {
    valkey.stop();
    try (TieredCache<String> cache = start(config("deals-7d9f-x1", "7d9f"))) {
      assertThat(cache.get("a")).isEqualTo("A");
      valkey.start();
      await().atMost(Duration.ofSeconds(15)).until(() -> entry("deals-7d9f-x1") != null);
    }
  }

  @Test
  void refusesToStartWithoutValkeyOrMeterRegistry() {
    try (TieredCache<String> cache = WarmGate.newBuilder(String.class, origin).cacheName("deals")
        .build()) {
      assertThatThrownBy(() -> FleetServices.newBuilder().meterRegistry(meters)
          .start(WarmableCaches.of(cache)))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("Valkey is not set");
      assertThatThrownBy(() -> FleetServices.newBuilder().valkey(valkey.endpoint())
          .start(WarmableCaches.of(cache)))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("meterRegistry");
    }
  }
}
