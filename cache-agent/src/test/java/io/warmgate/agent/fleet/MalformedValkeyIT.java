package io.warmgate.agent.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.CountingOrigin;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.RedisConnectionExtension;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmableCaches;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.preload.PreloadWorker;
import io.warmgate.agent.registry.AgentInfo;
import io.warmgate.agent.registry.AgentRegistry;
import io.warmgate.agent.stats.StatsFlusher;
import io.warmgate.agent.stats.WrittenKeys;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Garbage planted in the control keys an agent writes or reads (docs/valkey-layout.md): the
 * registry, stats, hot set and warm job. The agent replaces what it owns and cannot parse, skips
 * what it cannot use, and keeps serving lookups.
 */
class MalformedValkeyIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  final RedisConnectionExtension valkey = new RedisConnectionExtension(redis);

  private final ManualClock clock = new ManualClock();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("deal-1", "D1")
      .put("deal-2", "D2");
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  private final List<AutoCloseable> opened = new ArrayList<>();
  private TieredCache<String> cache;
  private KeySpace keys;
  private RedisCommands<String, String> raw;

  @BeforeEach
  void start() {
    raw = valkey.sync();
    cache = WarmGate.newBuilder(String.class, origin).cacheName("deals").valkeyUri(redis.uri())
        .clock(clock).meterRegistry(meters).l2Timeout(Duration.ofMillis(500)).build();
    keys = new KeySpace("deals", cache.schemaHash());
  }

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    scheduler.shutdownNow();
    cache.close();
  }

  private StatsFlusher flusher(WrittenKeys written) {
    return new StatsFlusher(valkey.connection(), keys, meters, written, Duration.ofMinutes(4),
        clock, Duration.ofSeconds(2));
  }

  // --- stats ---

  @ParameterizedTest(name = "l1Hits={0}")
  @ValueSource(strings = {"lots", "1.5", "9223372036854775807"})
  void regressionMalformedCounterRestartsInsteadOfFailingEveryFlushAndDoubleCounting(
      String garbage) {
    // A failing HINCRBY used to abort the script after earlier counters were applied; the deltas
    // were kept and sent again at every flush.
    raw.hset(keys.statsKey(), Map.of("l1Hits", garbage, "misses", "7"));
    StatsFlusher stats = flusher(new WrittenKeys());
    cache.get("a");
    cache.get("a");

    stats.flush();
    stats.flush();

    assertThat(raw.hgetall(keys.statsKey())).containsEntry("l1Hits", "1")
        .containsEntry("misses", "8");
    assertThat(raw.pttl(keys.statsKey())).isPositive();
  }

  @Test
  void regressionStatsKeysOfTheWrongTypeAreReplaced() {
    raw.set(keys.statsKey(), "not a hash");
    raw.rpush(keys.keysWrittenKey(), "not", "a", "hyperloglog");
    raw.set(keys.statsBucketKey(clock.millis() / 10_000 * 10), "junk");
    WrittenKeys written = new WrittenKeys();
    StatsFlusher stats = flusher(written);
    cache.get("a");
    written.add("a");

    assertThat(stats.flush()).isTrue();

    assertThat(raw.hget(keys.statsKey(), "misses")).isEqualTo("1");
    assertThat(raw.pfcount(keys.keysWrittenKey())).isEqualTo(1);
  }

  @Test
  void regressionNonHyperLogLogStringUnderTheKeysKeyDoesNotDoubleCountTheCounters() {
    raw.set(keys.keysWrittenKey(), "plain string");
    WrittenKeys written = new WrittenKeys();
    StatsFlusher stats = flusher(written);
    cache.get("a");
    written.add("a");

    stats.flush();
    stats.flush();

    assertThat(raw.hget(keys.statsKey(), "misses")).isEqualTo("1");
    assertThat(raw.pfcount(keys.keysWrittenKey())).isEqualTo(1);
  }

  // --- registry ---

  @Test
  void regressionRegistryOfTheWrongTypeIsReplacedByTheNextHeartbeat() {
    raw.set(keys.agentsKey(), "garbage");
    raw.hset(keys.spacesKey(), "not", "a sorted set");
    long now = clock.millis();
    AgentRegistry registry = new AgentRegistry(valkey.connection(), keys,
        new AgentInfo("pod-a", "shop", "7d9f", keys.schemaHash(), "1", now, now), clock);

    registry.heartbeat();

    assertThat(registry.entries()).extracting(AgentInfo::pod).containsExactly("pod-a");
    assertThat(raw.zrange(keys.spacesKey(), 0, -1)).containsExactly(keys.schemaHash());
  }

  @Test
  void registryEntriesThatAreHugeDeeplyNestedOrOddlyTypedAreLeftAloneAndSkipped() {
    long now = clock.millis();
    raw.hset(keys.agentsKey(), Map.of(
        "huge", "x".repeat(1 << 20),
        "nested", "[".repeat(10_000) + "]".repeat(10_000),
        "nan", "{\"pod\":\"nan\",\"schemaHash\":\"abc\",\"version\":\"1\",\"expiresAt\":nan}",
        "array", "[1,2,3]",
        "null", "null",
        "empty", ""));
    AgentRegistry registry = new AgentRegistry(valkey.connection(), keys,
        new AgentInfo("pod-a", "shop", "7d9f", keys.schemaHash(), "1", now, now), clock);
    clock.advance(Duration.ofHours(2));

    registry.heartbeat();

    assertThat(raw.hkeys(keys.agentsKey())).hasSize(7);
    assertThat(registry.entries()).extracting(AgentInfo::pod).containsExactly("pod-a");
  }

  // --- hot set ---

  @Test
  void regressionHotSetAndLandmarkOfTheWrongTypeAreReplacedByTheNextFlush() {
    raw.set(keys.hotKey(), "garbage");
    raw.hset(keys.hotLandmarkKey(), "not", "a string");
    HotKeys hot = new HotKeys(1, 16, 100, Duration.ofMinutes(10));
    hot.record("deal-1");

    assertThat(hot.flush(valkey.connection(), keys, clock)).isEqualTo(1);

    assertThat(raw.zrange(keys.hotKey(), 0, -1)).containsExactly("deal-1");
  }

  @Test
  void hotSetMetaOfTheWrongTypeIsReplacedByTheNextFlush() {
    raw.set(keys.hotMetaKey(), "garbage");
    HotKeys hot = new HotKeys(1, 16, 100, Duration.ofMinutes(10));
    hot.record("deal-1");

    assertThat(hot.flush(valkey.connection(), keys, clock)).isEqualTo(1);

    assertThat(raw.hgetall(keys.hotMetaKey())).isEqualTo(Map.of(
        "since", Long.toString(clock.millis()), "halfLifeMs", "600000", "samplePeriod", "1"));
  }

  @Test
  void nonNumericStartOfObservationIsReplacedByTheLandmark() {
    HotKeys hot = new HotKeys(1, 16, 100, Duration.ofMinutes(10));
    hot.record("deal-1");
    hot.flush(valkey.connection(), keys, clock);
    raw.hset(keys.hotMetaKey(), "since", "1e3");
    clock.advance(Duration.ofMinutes(3));
    hot.record("deal-1");

    hot.flush(valkey.connection(), keys, clock);

    assertThat(raw.hget(keys.hotMetaKey(), "since")).isEqualTo(raw.get(keys.hotLandmarkKey()));
  }

  @Test
  void nonNumericLandmarkIsReplacedByTheFlushTime() {
    raw.set(keys.hotLandmarkKey(), "yesterday");
    HotKeys hot = new HotKeys(1, 16, 100, Duration.ofMinutes(10));
    hot.record("deal-1");

    hot.flush(valkey.connection(), keys, clock);

    assertThat(raw.get(keys.hotLandmarkKey())).isEqualTo(Long.toString(clock.millis()));
    assertThat(raw.zscore(keys.hotKey(), "deal-1")).isEqualTo(1.0);
  }

  // --- warm job ---

  private PreloadWorker worker() {
    PreloadWorker worker = new PreloadWorker(valkey.connection(), WarmableCaches.of(cache), "pod-a",
        InstantSource.system(), scheduler, Duration.ofMillis(50));
    opened.add(worker);
    return worker;
  }

  private void awaitJobState(String state) {
    await().atMost(Duration.ofSeconds(20))
        .until(() -> state.equals(raw.hget(keys.warmJobKey(), "state")));
  }

  @Test
  void invalidIdsInTheWarmListCountAsErrorsAndTheValidOnesAreLoaded() {
    raw.rpush(keys.warmIdsKey(), "deal-1", "", "x".repeat(70_000), "deal-2");
    raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "4", "rate", "1000",
        "batchSize", "4", "cursor", "0"));

    worker().start();

    awaitJobState("Done");
    assertThat(raw.hgetall(keys.warmJobKey())).containsEntry("filled", "2")
        .containsEntry("errors", "2");
    assertThat(raw.exists(keys.valueKey("deal-1"), keys.valueKey("deal-2"))).isEqualTo(2);
  }

  @Test
  void regressionWarmIdListOfTheWrongTypeFailsTheJobNamingTheKey() {
    // WRONGTYPE used to escape the worker, which retook the lock every poll and never failed the job.
    raw.hset(keys.warmIdsKey(), "deal-1", "1");
    raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "1", "rate", "10",
        "batchSize", "1", "cursor", "0"));

    worker().start();

    awaitJobState("Failed");
    assertThat(raw.hget(keys.warmJobKey(), "message")).contains(keys.warmIdsKey())
        .contains("is not a list");
  }

  @Test
  void warmJobOfTheWrongTypeIsSkippedAndTheWorkerTakesTheJobOnceItIsFixed() {
    raw.set(keys.warmJobKey(), "garbage");
    worker().start();
    assertThat(cache.get("deal-1")).isEqualTo("D1");

    raw.del(keys.warmJobKey());
    raw.rpush(keys.warmIdsKey(), "deal-2");
    raw.hset(keys.warmJobKey(), Map.of("state", "Open", "target", "1", "rate", "10",
        "batchSize", "1", "cursor", "0"));

    awaitJobState("Done");
  }
}
