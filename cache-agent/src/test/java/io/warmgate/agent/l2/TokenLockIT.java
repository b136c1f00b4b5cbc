package io.warmgate.agent.l2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The token lock on a real redis-server and a real Redis cluster. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class TokenLockIT {

  @RegisterExtension
  final L2Extension valkey;

  TokenLockIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @Test
  void onlyTheHolderRenewsAndReleases() {
    RedisClusterCommands<String, String> redis = valkey.strings();
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
    RedisClusterCommands<String, String> redis = valkey.strings();
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
