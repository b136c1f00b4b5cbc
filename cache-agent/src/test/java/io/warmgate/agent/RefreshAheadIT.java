package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The cross-pod refresh lock against a real redis-server and a real Redis cluster. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class RefreshAheadIT {

  @RegisterExtension
  final L2Extension valkey;

  private final KeySpace keys = new KeySpace("deals", "0123456789ab");
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CacheMetrics metrics = new CacheMetrics(registry, "deals");
  private final List<List<String>> reloads = new CopyOnWriteArrayList<>();
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final ExecutorService replies = Executors.newSingleThreadExecutor();
  private L2Store store;
  private RefreshAhead<String> refresher;

  RefreshAheadIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void setUp() {
    store = L2Store.connect(valkey.endpoint(), Duration.ofMillis(500),
        CircuitBreakerConfig.ofDefaults(), new L2Store.Listener() {
          @Override
          public void failed(Throwable cause, boolean timeout) {}

          @Override
          public void skipped() {}
        }, replies, Duration.ofSeconds(5));
    refresher = new RefreshAhead<>(keys, store, Duration.ofSeconds(5),
        new LeaseRenewer(store, Duration.ofSeconds(5), Duration.ofSeconds(5)), "pod-b", executor,
        metrics, reloads::add);
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
    store.close();
    replies.shutdownNow();
  }

  @Test
  void winnerReloadsOnceAndReleasesItsLock() {
    valkey.bytes().set(keys.valueKey("a"), Envelope.found("0123456789ab", 1_000, new byte[] {1}).encode());

    refresher.refresh(Map.of("a", 1_000L));

    await().atMost(Duration.ofSeconds(5)).until(() -> reloads.size() == 1
        && valkey.bytes().exists(keys.lockKey("a")) == 0);
    assertThat(reloads).containsExactly(List.of("a"));
    assertThat(Meters.count(registry, "warmgate.refresh", "result", "won")).isEqualTo(1);
  }

  @Test
  void regressionPodThatLocksJustAfterAnotherPodsRefreshDoesNotReloadAgain() {
    // Pod b saw the entry fetched at 1000; pod a refreshed it (fetched at 2000) and released the
    // lock before pod b asked for it.
    valkey.bytes().set(keys.valueKey("a"), Envelope.found("0123456789ab", 2_000, new byte[] {1}).encode());

    refresher.refresh(Map.of("a", 1_000L));

    await().atMost(Duration.ofSeconds(5)).until(() ->
        Meters.count(registry, "warmgate.refresh", "result", "lost") == 1
            && valkey.bytes().exists(keys.lockKey("a")) == 0);
    assertThat(reloads).isEmpty();
  }

  @Test
  void lockOfAnotherPodIsNeitherTakenNorReleased() {
    valkey.bytes().set(keys.lockKey("a"), "pod-a/123".getBytes());

    refresher.refresh(Map.of("a", 1_000L));

    await().atMost(Duration.ofSeconds(5)).until(() ->
        Meters.count(registry, "warmgate.refresh", "result", "lost") == 1);
    assertThat(reloads).isEmpty();
    assertThat(valkey.bytes().get(keys.lockKey("a"))).isEqualTo("pod-a/123".getBytes());
    assertThat(valkey.bytes().pttl(keys.lockKey("a"))).as("no expiry was added").isEqualTo(-1);
  }

  @Test
  void lockExpiresByItselfAfterLockTtl() {
    assertThat(store.setIfAbsent(keys.lockKey("a"), "t1".getBytes(), 5_000).join()).isTrue();
    assertThat(store.setIfAbsent(keys.lockKey("a"), "t2".getBytes(), 5_000).join()).isFalse();
    assertThat(valkey.bytes().pttl(keys.lockKey("a"))).isBetween(1L, 5_000L);
  }

  @Test
  void compareAndDeleteRemovesOnlyItsOwnToken() {
    valkey.bytes().set(keys.lockKey("a"), "mine".getBytes());

    assertThat(store.deleteIfEquals(keys.lockKey("a"), "theirs".getBytes()).join()).isFalse();
    assertThat(valkey.bytes().exists(keys.lockKey("a"))).isEqualTo(1);
    assertThat(store.deleteIfEquals(keys.lockKey("a"), "mine".getBytes()).join()).isTrue();
    assertThat(valkey.bytes().exists(keys.lockKey("a"))).isZero();
  }
}
