package io.warmgate.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The token lock on a real redis-server and a real Redis cluster. */
@ParameterizedClass
@EnumSource(ValkeyEndpoint.Mode.class)
class TokenLockIT {

  private static final ClientResources RESOURCES = ValkeyConnection.resources(1);
  private static RedisServer standalone;

  private final ValkeyEndpoint.Mode mode;
  private ValkeyConnection<String> connection;

  TokenLockIT(ValkeyEndpoint.Mode mode) {
    this.mode = mode;
  }

  @BeforeEach
  void connect() throws Exception {
    ValkeyEndpoint endpoint;
    if (mode == ValkeyEndpoint.Mode.STANDALONE) {
      startStandalone();
      standalone.flushAll();
      endpoint = ValkeyEndpoint.standalone(standalone.uri());
    } else {
      RedisCluster cluster = RedisCluster.shared();
      cluster.flushAll();
      endpoint = ValkeyEndpoint.cluster(cluster.uris().toArray(String[]::new));
    }
    connection = ValkeyConnection.open(endpoint, StringCodec.UTF8, RESOURCES,
        Duration.ofSeconds(5)).get();
  }

  private static synchronized void startStandalone() {
    if (standalone == null) {
      standalone = RedisServer.create();
    }
    if (!standalone.isRunning()) {
      standalone.start();
    }
  }

  @AfterEach
  void close() {
    connection.close();
  }

  @AfterAll
  static void stopStandalone() {
    if (standalone != null) {
      standalone.close();
      standalone = null;
    }
  }

  @Test
  void onlyTheHolderRenewsAndReleases() {
    RedisClusterCommands<String, String> redis = connection.sync();
    TokenLock lock = new TokenLock("{wg:deals}:warm:lock", Duration.ofSeconds(10));
    assertThat(lock.acquire(redis, "pod-a/1")).isTrue();
    assertThat(lock.acquire(redis, "pod-b/1")).as("held by pod-a").isFalse();

    redis.pexpire(lock.key(), 1_000);
    assertThat(lock.renew(redis, "pod-b/1")).isFalse();
    assertThat(redis.pttl(lock.key())).as("pod-b's renewal changed nothing").isLessThanOrEqualTo(1_000);
    assertThat(lock.renew(redis, "pod-a/1")).isTrue();
    assertThat(redis.pttl(lock.key())).isGreaterThan(9_000);

    assertThat(lock.release(redis, "pod-b/1")).isFalse();
    assertThat(redis.get(lock.key())).isEqualTo("pod-a/1");
    assertThat(lock.release(redis, "pod-a/1")).isTrue();
    assertThat(lock.acquire(redis, "pod-b/1")).as("free again at once").isTrue();
  }

  @Test
  void aLockNotRenewedLapsesAndItsOldHolderCannotTouchTheNextOne() {
    RedisClusterCommands<String, String> redis = connection.sync();
    TokenLock lock = new TokenLock("{wg:deals}:changes:S:lock", Duration.ofMillis(300));
    assertThat(lock.acquire(redis, "pod-a/1")).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> lock.acquire(redis, "pod-b/1"));
    assertThat(lock.renew(redis, "pod-a/1")).isFalse();
    assertThat(lock.release(redis, "pod-a/1")).isFalse();
    assertThat(redis.get(lock.key())).isEqualTo("pod-b/1");
  }

  @Test
  void aTtlBelowOneMillisecondIsRefused() {
    assertThatThrownBy(() -> new TokenLock("k", Duration.ofNanos(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
  }
}
