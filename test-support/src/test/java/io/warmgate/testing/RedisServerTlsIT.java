package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class RedisServerTlsIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.withTls();

  @TempDir
  Path otherCa;

  private static StatefulRedisConnection<String, String> connect(RedisClient client, Path ca) {
    client.setOptions(ClientOptions.builder()
        .sslOptions(SslOptions.builder().jdkSslProvider().trustManager(ca.toFile()).build())
        .build());
    return client.connect();
  }

  @Test
  void servesClientsThatTrustItsCa() {
    assertThat(redis.uri()).startsWith("rediss://127.0.0.1:");
    RedisClient client = RedisClient.create(RedisURI.create(redis.uri()));
    try (StatefulRedisConnection<String, String> c =
        connect(client, redis.tlsCertificates().orElseThrow().caCertificate())) {
      c.sync().set("k", "v");
      assertThat(c.sync().get("k")).isEqualTo("v");
      redis.flushAll();
      assertThat(c.sync().dbsize()).isZero();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  @Test
  void refusesPlainClientsAndClientsOfAnotherCa() {
    RedisURI plain = RedisURI.create("redis://127.0.0.1:" + redis.port());
    plain.setTimeout(Duration.ofSeconds(2));
    RedisClient plainClient = RedisClient.create(plain);
    RedisClient foreignClient = RedisClient.create(RedisURI.create(redis.uri()));
    try {
      assertThatThrownBy(() -> plainClient.connect().sync().ping()).isNotNull();
      Path foreign = TestCertificates.issue(otherCa).caCertificate();
      assertThatThrownBy(() -> connect(foreignClient, foreign))
          .isInstanceOf(RedisConnectionException.class);
    } finally {
      plainClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      foreignClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
