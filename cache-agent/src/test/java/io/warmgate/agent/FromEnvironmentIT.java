package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisExtension;
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
}
