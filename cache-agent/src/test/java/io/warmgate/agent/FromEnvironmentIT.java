package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** WARMGATE_* variables against a password-protected redis-server. */
class FromEnvironmentIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.withPassword("s3cret-pw");

  private final CountingOrigin origin = new CountingOrigin().put("a", "A");

  private Map<String, String> env(String password) {
    Map<String, String> env = new HashMap<>();
    env.put("WARMGATE_CACHE_NAME", "deals");
    env.put("WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port());
    env.put("WARMGATE_VALKEY_PASSWORD", password);
    env.put("WARMGATE_VALKEY_TLS", "false");
    env.put("WARMGATE_L2_TIMEOUT", "500ms");
    return env;
  }

  @Test
  void variablesConnectToThePasswordProtectedL2() {
    try (TieredCache<String> cache =
        WarmGate.fromConfig(WarmGateConfig.from(env("s3cret-pw")), String.class, origin).build();
        RawRedis raw = new RawRedis("redis://s3cret-pw@" + redis.host() + ":" + redis.port())) {
      assertThat(cache.get("a")).isEqualTo("A");
      await().atMost(Duration.ofSeconds(5)).until(() ->
          raw.sync().exists(new KeySpace("deals", cache.schemaHash()).valueKey("a")) == 1);
    }
  }

  @Test
  void wrongPasswordLeavesLookupsWorkingFromTheOrigin() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TieredCache<String> cache = WarmGate.fromConfig(WarmGateConfig.from(env("wrong")),
        String.class, origin).meterRegistry(registry).build()) {
      assertThat(cache.get("a")).isEqualTo("A");
      assertThat(Meters.count(registry, "warmgate.l2.skipped")).isPositive();
    }
  }

  @Test
  void variablesStartTheFleetServicesAndCloseStopsThem() {
    Map<String, String> env = env("s3cret-pw");
    env.put("WARMGATE_POD_NAME", "deal-service-7d9f-abcde");
    env.put("WARMGATE_POD_NAMESPACE", "demo");
    env.put("WARMGATE_POD_TEMPLATE_HASH", "7d9f");
    try (RawRedis raw = new RawRedis("redis://s3cret-pw@" + redis.host() + ":" + redis.port())) {
      String agents = "{wg:deals}:agents";
      TieredCache<String> cache =
          WarmGate.fromConfig(WarmGateConfig.from(env), String.class, origin).build();
      try {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
            assertThat(new String(raw.sync().hget(agents, "demo/deal-service-7d9f-abcde"), StandardCharsets.UTF_8))
                .contains("\"podTemplateHash\":\"7d9f\"")
                .contains("\"schemaHash\":\"" + cache.schemaHash() + "\""));
        cache.get("a");
        await().atMost(Duration.ofSeconds(15)).until(() ->
            raw.sync().pfcount("{wg:deals}:keys:" + cache.schemaHash()) == 1);
      } finally {
        cache.close();
      }
      assertThat(raw.sync().hget(agents, "demo/deal-service-7d9f-abcde")).as("deregistered on close").isNull();
    }
  }
}
