package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisClusterExtension;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent over TLS, configured as the operator configures it ({@code WARMGATE_*} variables), on
 * a TLS-only redis-server and a TLS-only Redis cluster whose certificates a CA issued in the test
 * signed: trusted through {@code WARMGATE_VALKEY_TLS_CA_FILE} or {@code WARMGATE_VALKEY_TLS_CA}.
 * A mismatch (plain against TLS, an untrusted CA) leaves lookups on the origin, never failing.
 */
class ValkeyTlsIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.withTls();

  @RegisterExtension
  static final RedisClusterExtension cluster = RedisClusterExtension.withTls();

  @TempDir
  Path otherCa;

  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("WARMGATE_CACHE_NAME", "deals");
    env.put("WARMGATE_L2_TIMEOUT", "1s");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private TieredCache<String> agent(Map<String, String> env, SimpleMeterRegistry meters) {
    return WarmGate.fromConfig(WarmGateConfig.from(env), String.class, origin)
        .meterRegistry(meters).fleetServices(false).build();
  }

  private static String address() {
    return "127.0.0.1:" + redis.port();
  }

  private static TestCertificates serverCa() {
    return redis.tlsCertificates().orElseThrow();
  }

  /** Reads {@code key} from the TLS server as a client that trusts its CA. */
  private static byte[] rawGet(String key) {
    RedisClient client = RedisClient.create(RedisURI.create(redis.uri()));
    client.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
        .trustManager(serverCa().caCertificate().toFile()).build()).build());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      String value = c.sync().get(key);
      return value == null ? null : value.getBytes();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static <T> T withCluster(Function<StatefulRedisClusterConnection<String, String>, T> use) {
    RedisClusterClient client = RedisClusterClient.create(
        cluster.uris().stream().map(RedisURI::create).toList());
    client.setOptions(ClusterClientOptions.builder().sslOptions(SslOptions.builder()
        .jdkSslProvider().trustManager(cluster.tlsCertificates().orElseThrow().caCertificate()
            .toFile()).build()).build());
    try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
      return use.apply(c);
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void aCaFileLetsTheAgentUseATlsServer() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (TieredCache<String> cache = agent(env("WARMGATE_VALKEY_ADDRESSES", address(),
        "WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_VALKEY_TLS_CA_FILE", serverCa().caCertificate().toString()), meters)) {
      assertThat(cache.get("a")).isEqualTo("A");
      String key = new KeySpace("deals", cache.schemaHash()).valueKey("a");
      await().atMost(Duration.ofSeconds(5)).until(() -> rawGet(key) != null);
      assertThat(Meters.count(meters, "warmgate.l2.writes")).isEqualTo(1);
    }
  }

  @Test
  void aCaAsPemTextDoesTheSame() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (TieredCache<String> writer = agent(env("WARMGATE_VALKEY_ADDRESSES", address(),
        "WARMGATE_VALKEY_TLS", "true", "WARMGATE_VALKEY_TLS_CA", serverCa().caPem()), meters);
        TieredCache<String> reader = agent(env("WARMGATE_VALKEY_ADDRESSES", address(),
            "WARMGATE_VALKEY_TLS", "true", "WARMGATE_VALKEY_TLS_CA", serverCa().caPem()),
            new SimpleMeterRegistry())) {
      writer.get("b");
      await().atMost(Duration.ofSeconds(5))
          .until(() -> Meters.count(meters, "warmgate.l2.writes") == 1);
      assertThat(reader.get("b")).isEqualTo("B");
      assertThat(origin.calls()).as("the second agent read L2").isEqualTo(1);
    }
  }

  @Test
  void plainAgainstTlsOrAnUntrustedCaLeavesLookupsOnTheOrigin() {
    Path foreign = TestCertificates.issue(otherCa).caCertificate();
    SimpleMeterRegistry plainMeters = new SimpleMeterRegistry();
    SimpleMeterRegistry foreignMeters = new SimpleMeterRegistry();
    try (TieredCache<String> plain = agent(env("WARMGATE_VALKEY_ADDRESSES", address()),
        plainMeters);
        TieredCache<String> untrusting = agent(env("WARMGATE_VALKEY_ADDRESSES", address(),
            "WARMGATE_VALKEY_TLS", "true", "WARMGATE_VALKEY_TLS_CA_FILE", foreign.toString()),
            foreignMeters)) {
      assertThat(plain.get("a")).isEqualTo("A");
      assertThat(untrusting.get("b")).isEqualTo("B");
      assertThat(origin.calls()).isEqualTo(2);
      for (SimpleMeterRegistry m : java.util.List.of(plainMeters, foreignMeters)) {
        assertThat(Meters.count(m, "warmgate.l2.writes")).isZero();
        assertThat(Meters.count(m, "warmgate.l2.skipped")
            + Meters.count(m, "warmgate.l2.errors", "kind", "failure")
            + Meters.count(m, "warmgate.l2.errors", "kind", "timeout")).isPositive();
      }
    }
  }

  @Test
  void aTlsClusterWithItsCaRunsTheDataPathAndTheFleetServices() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    TestCertificates ca = cluster.tlsCertificates().orElseThrow();
    Map<String, String> env = env("WARMGATE_VALKEY_MODE", "cluster",
        "WARMGATE_VALKEY_ADDRESSES", String.join(",", cluster.addresses().subList(0, 2)),
        "WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_VALKEY_TLS_CA_FILE", ca.caCertificate().toString(),
        "WARMGATE_POD_NAME", "deals-7d9f-tls");
    try (TieredCache<String> cache = WarmGate.fromConfig(WarmGateConfig.from(env), String.class,
        origin).meterRegistry(meters).build()) {
      assertThat(cache.get("a")).isEqualTo("A");
      assertThat(cache.get("b")).isEqualTo("B");
      KeySpace keys = new KeySpace("deals", cache.schemaHash());
      await().atMost(Duration.ofSeconds(10)).until(() -> withCluster(c ->
          c.sync().exists(keys.valueKey("a"), keys.valueKey("b")) == 2
              && c.sync().hexists(keys.agentsKey(), "deals-7d9f-tls")));
    }
  }
}
