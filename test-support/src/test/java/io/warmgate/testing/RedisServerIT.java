package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisServerIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private RedisClient client;

  @BeforeEach
  void connect() {
    RedisURI uri = RedisURI.create(redis.uri());
    uri.setTimeout(Duration.ofSeconds(2));
    client = RedisClient.create(uri);
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .build());
  }

  @AfterEach
  void disconnect() {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  @Test
  void servesSetWithTtlAndGet() {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      var commands = connection.sync();

      assertThat(commands.set("deal-000001", "v1", SetArgs.Builder.px(300))).isEqualTo("OK");

      assertThat(commands.get("deal-000001")).isEqualTo("v1");
      assertThat(commands.pttl("deal-000001")).isBetween(1L, 300L);
      await().atMost(Duration.ofSeconds(3)).until(() -> commands.get("deal-000001") == null);
    }
  }

  @Test
  void flushAllDeletesEveryKey() {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().set("a", "1");

      redis.flushAll();

      assertThat(connection.sync().dbsize()).isZero();
    }
  }

  @Test
  void stopIsAnOutageAndStartRecoversOnTheSamePort() {
    int port = redis.port();
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().set("before", "1");

      redis.stop();

      assertThat(redis.isRunning()).isFalse();
      assertThatThrownBy(() -> connection.sync().get("before")).isInstanceOf(RedisException.class);
      assertThatThrownBy(client::connect).isInstanceOf(RedisConnectionException.class);

      redis.start();

      assertThat(redis.isRunning()).isTrue();
      assertThat(redis.port()).isEqualTo(port);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
          .untilAsserted(() -> assertThat(connection.sync().set("after", "2")).isEqualTo("OK"));
      assertThat(connection.sync().get("before")).as("SIGKILL loses data").isNull();
    }
  }

  @Test
  void serverStoppedByAnEarlierTestIsRunningAgain() {
    redis.stop();
    redis.start();

    assertThat(redis.isRunning()).isTrue();
    assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
  }

  @Nested
  class WithPassword {

    @RegisterExtension
    final RedisExtension secured = RedisExtension.withPassword("s3cret");

    @Test
    void refusesClientsWithoutThePassword() {
      RedisClient client = RedisClient.create();
      try {
        assertThatThrownBy(() -> client.connect(RedisURI.create(secured.uri())))
            .isInstanceOf(RedisConnectionException.class)
            .rootCause().hasMessageContaining("NOAUTH");
        RedisURI withPassword = RedisURI.builder()
            .withHost(secured.host())
            .withPort(secured.port())
            .withPassword(secured.password().orElseThrow().toCharArray())
            .build();
        try (var authenticated = client.connect(withPassword)) {
          assertThat(authenticated.sync().ping()).isEqualTo("PONG");
        }
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }
}
