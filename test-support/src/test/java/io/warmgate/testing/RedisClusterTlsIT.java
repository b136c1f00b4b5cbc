package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisClusterTlsIT {

  @RegisterExtension
  static final RedisClusterExtension cluster = RedisClusterExtension.withTls();

  @Test
  void nodesServeClientsThatTrustTheClusterCa() {
    assertThat(cluster.uris()).allSatisfy(u -> assertThat(u).startsWith("rediss://127.0.0.1:"));
    RedisClusterClient client =
        RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
    client.setOptions(ClusterClientOptions.builder().sslOptions(SslOptions.builder()
        .jdkSslProvider()
        .trustManager(cluster.tlsCertificates().orElseThrow().caCertificate().toFile())
        .build()).build());
    try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
      for (int i = 0; i < 100; i++) {
        c.sync().set("key-" + i, "v" + i);
      }
      assertThat(c.sync().get("key-99")).isEqualTo("v99");
      assertThat(cluster.keysPerPrimary().values()).allSatisfy(n -> assertThat(n).isPositive());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
