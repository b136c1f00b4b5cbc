package io.warmgate.agent.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.CountingOrigin;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.Meters;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Stats flushes of two agents of one namespace into a real redis-server and a Redis cluster. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class StatsFlusherIT {

  /** 2026-03-01T12:00:00Z = epoch second 1772366400, a bucket start. */
  private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T12:00:00Z"));
  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B");
  private final List<AutoCloseable> opened = new ArrayList<>();
  @RegisterExtension
  final L2Extension valkey;
  private ValkeyConnection<String> connection;
  private RedisClusterCommands<String, String> raw;

  StatsFlusherIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void connect() {
    connection = valkey.connection();
    raw = valkey.strings();
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  /** One agent: a cache with L2 and its own meter registry, and its flusher. */
  private record Agent(TieredCache<String> cache, SimpleMeterRegistry meters, StatsFlusher stats,
      WrittenKeys written) {}

  private Agent agent(String pod) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    TieredCache<String> cache = WarmGate.newBuilder(String.class, origin).cacheName("deals")
        .valkey(valkey.endpoint()).podName(pod).clock(clock).meterRegistry(meters)
        .l2Timeout(Duration.ofMillis(500)).build();
    opened.add(cache);
    WrittenKeys written = new WrittenKeys();
    StatsFlusher stats = new StatsFlusher(connection, new KeySpace("deals", cache.schemaHash()),
        meters, written, Duration.ofMinutes(4), clock, Duration.ofSeconds(2));
    return new Agent(cache, meters, stats, written);
  }

  private static void awaitL2Writes(Agent agent, long n) {
    await().atMost(Duration.ofSeconds(5))
        .until(() -> Meters.count(agent.meters(), "warmgate.l2.writes") == n);
  }

  @Test
  void deltasOfTwoAgentsAddUpInTheNamespaceAndItsBucket() {
    Agent a = agent("a");
    Agent b = agent("b");
    KeySpace keys = new KeySpace("deals", a.cache().schemaHash());

    a.cache().get("a"); // L1 miss, L2 miss, origin
    a.cache().get("a"); // L1 hit
    a.cache().get("b"); // L1 miss, L2 miss, origin
    awaitL2Writes(a, 2);
    b.cache().get("a"); // L1 miss, L2 hit
    b.cache().get("a"); // L1 hit
    b.cache().get("c"); // L1 miss, L2 miss, origin: not found, a negative entry
    awaitL2Writes(b, 1);

    clock.advance(Duration.ofSeconds(3));
    assertThat(a.stats().flush()).isTrue();
    assertThat(b.stats().flush()).isTrue();

    Map<String, String> expected = Map.of("l1Hits", "2", "l2Hits", "1", "misses", "3",
        "originLoads", "3", "l2Writes", "3");
    assertThat(raw.hgetall("{wg:deals}:stats:" + keys.schemaHash())).containsAllEntriesOf(expected)
        .doesNotContainKey("originErrors");
    assertThat(raw.hgetall("{wg:deals}:stats:" + keys.schemaHash() + ":1772366400"))
        .containsAllEntriesOf(expected);
    assertThat(raw.pttl(keys.statsKey())).isBetween(470_000L, 480_000L); // 2 × l2Ttl
    assertThat(raw.pttl(keys.statsBucketKey(1772366400L))).isBetween(3_590_000L, 3_600_000L);
  }

  @Test
  void aLaterFlushSendsOnlyNewCountsIntoTheBucketOfItsTime() {
    Agent a = agent("a");
    KeySpace keys = new KeySpace("deals", a.cache().schemaHash());
    a.cache().get("a");
    a.cache().get("a");
    assertThat(a.stats().flush()).isTrue();

    clock.advance(Duration.ofSeconds(12)); // bucket 1772366410
    a.cache().get("a");
    a.cache().get("a");
    a.cache().get("a");
    assertThat(a.stats().flush()).isTrue();

    assertThat(raw.hget(keys.statsKey(), "l1Hits")).isEqualTo("4");
    assertThat(raw.hget(keys.statsBucketKey(1772366400L), "l1Hits")).isEqualTo("1");
    assertThat(raw.hget(keys.statsBucketKey(1772366410L), "l1Hits")).isEqualTo("3");
    assertThat(raw.hget(keys.statsBucketKey(1772366410L), "misses")).isNull();
  }

  @Test
  void aFlushWithNothingNewSendsNothing() {
    Agent a = agent("a");
    KeySpace keys = new KeySpace("deals", a.cache().schemaHash());
    assertThat(a.stats().flush()).isFalse();
    assertThat(raw.exists(keys.statsKey())).isZero();
    a.cache().get("a");
    awaitL2Writes(a, 1);
    assertThat(a.stats().flush()).isTrue();
    assertThat(a.stats().flush()).isFalse();
  }

  @Test
  void idsWrittenByTwoAgentsAreCountedOnceInTheHyperLogLog() {
    Agent a = agent("a");
    Agent b = agent("b");
    KeySpace keys = new KeySpace("deals", a.cache().schemaHash());
    for (int i = 0; i < 20_000; i++) {
      a.written().add("deal-" + i);
    }
    for (int i = 10_000; i < 30_000; i++) {
      b.written().add("deal-" + i); // half of them also written by a
    }
    assertThat(a.stats().flush()).isTrue();
    assertThat(b.stats().flush()).isTrue();
    // 30 000 distinct ids; HyperLogLog's standard error is 0.81 %.
    assertThat(raw.pfcount(keys.keysWrittenKey())).isBetween(29_000L, 31_000L);
    assertThat(raw.pttl(keys.keysWrittenKey())).isBetween(230_000L, 240_000L); // l2Ttl
  }

  @Test
  void countsOfAFailedFlushGoWithTheNextOne() {
    Agent a = agent("a");
    KeySpace keys = new KeySpace("deals", a.cache().schemaHash());
    a.cache().get("a");
    a.cache().get("a");
    a.written().add("x");
    valkey.stop();
    assertThatThrownBy(() -> a.stats().flush()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stats flush of");
    a.cache().get("a");
    valkey.start();
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> a.stats().flush());
    assertThat(raw.hget(keys.statsKey(), "l1Hits")).isEqualTo("2");
    assertThat(raw.pfcount(keys.keysWrittenKey())).isEqualTo(1);
  }
}
