package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The L2 tier on a real redis-server and a real Redis cluster: key layout, sharing between pods,
 * refresh-ahead, failures.
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class L2TierIT {

  @RegisterExtension
  final L2Extension valkey;

  private final ManualClock clock = new ManualClock();
  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B").put("c", "C");
  private final List<TieredCache<?>> opened = new ArrayList<>();
  private final SimpleMeterRegistry metricsA = new SimpleMeterRegistry();
  private final SimpleMeterRegistry metricsB = new SimpleMeterRegistry();

  L2TierIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @AfterEach
  void close() {
    origin.release();
    opened.forEach(TieredCache::close);
  }

  private TieredCache<String> pod(String name, SimpleMeterRegistry registry) {
    return pod(name, registry, UnaryOperator.identity());
  }

  private TieredCache<String> pod(String name, SimpleMeterRegistry registry,
      UnaryOperator<WarmGate<String>> settings) {
    WarmGate<String> builder = WarmGate.newBuilder(String.class, origin)
        .cacheName("deals")
        .valkey(valkey.endpoint())
        .podName(name)
        .clock(clock)
        .meterRegistry(registry)
        // Generous for a shared 2-core machine; the budget itself is tested with 20 ms below.
        .l2Timeout(Duration.ofMillis(500));
    TieredCache<String> cache = settings.apply(builder).build();
    opened.add(cache);
    return cache;
  }

  private String key(TieredCache<?> cache, String id) {
    return new KeySpace(cache.name(), cache.schemaHash()).valueKey(id);
  }

  private void awaitInL2(TieredCache<?> cache, String id) {
    await().atMost(Duration.ofSeconds(5)).until(() -> valkey.bytes().exists(key(cache, id)) == 1);
  }

  @Test
  void missLoadsFromOriginAndWritesAnEnvelopeUnderTheDocumentedKey() {
    TieredCache<String> a = pod("a", metricsA);
    assertThat(a.get("a")).isEqualTo("A");

    String key = "wg:deals:" + a.schemaHash() + ":a";
    awaitInL2(a, "a");
    Envelope envelope = valkey.envelope(key, a.schemaHash());
    assertThat(envelope.isFound()).isTrue();
    assertThat(envelope.fetchedAtMillis()).isEqualTo(clock.millis());
    assertThat(valkey.bytes().pttl(key)).isBetween(230_000L, 240_000L);
    assertThat(Meters.count(metricsA, "warmgate.l2.writes")).isEqualTo(1);
    assertThat(Meters.count(metricsA, "warmgate.cache.gets", "tier", "l2", "result", "miss")).isEqualTo(1);
  }

  @Test
  void regressionFillL2WritesL2EvenWhenL1HoldsTheValue() {
    TieredCache<String> a = pod("a", metricsA);
    a.get("a");
    awaitInL2(a, "a");
    valkey.bytes().del(key(a, "a")); // L2 lost the entry (expiry, eviction, a failed write); L1 still has it

    assertThat(a.fillL2(List.of("a", "b", "a", "missing"))).isEqualTo(3);

    assertThat(valkey.bytes().exists(key(a, "a"), key(a, "b"), key(a, "missing"))).isEqualTo(3);
    assertThat(valkey.envelope(key(a, "missing"), a.schemaHash()).isFound()).isFalse();
    assertThat(origin.calls()).as("one batched origin call for the ids L2 lacked").isEqualTo(2);
  }

  @Test
  void fillL2CountsOnlyWhatL2HoldsSoTheCallerCanRetry() {
    TieredCache<String> a = pod("a", metricsA);
    valkey.stop();
    try {
      assertThat(a.fillL2(List.of("a", "b"))).isZero();
      assertThat(origin.calls()).as("the origin is not read for ids L2 cannot take").isZero();
    } finally {
      valkey.start();
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> a.fillL2(List.of("a", "b")) == 2);
  }

  @Test
  void fillL2WithAMinimumTtlLeftReloadsOnlyTheEntriesAboutToExpire() {
    TieredCache<String> a = pod("a", metricsA);
    assertThat(a.fillL2(List.of("a"))).isEqualTo(1);
    clock.advance(Duration.ofSeconds(100));
    assertThat(a.fillL2(List.of("b"))).isEqualTo(1); // "a" has 140 s left, "b" 240 s
    assertThat(origin.calls()).isEqualTo(2);

    assertThat(a.fillL2(List.of("a", "b"), Duration.ofSeconds(180))).isEqualTo(2);
    assertThat(origin.batches().get(2)).as("only the entry with less than 180 s left")
        .containsExactly("a");
    assertThat(valkey.envelope(key(a, "a"), a.schemaHash()).fetchedAtMillis()).isEqualTo(clock.millis());
    assertThat(a.fillL2(List.of("a", "b"), Duration.ofSeconds(180))).isEqualTo(2);
    assertThat(origin.calls()).as("nothing left to reload").isEqualTo(3);
  }

  @Test
  void whileL2IsDownHeldValuesYoungerThanMaxStalenessAreServedInsteadOfReadingTheOrigin() {
    TieredCache<String> a = pod("a", metricsA, w -> w.l1Ttl(Duration.ofSeconds(10))
        .maxStaleness(Duration.ofSeconds(60)).staleIfError(Duration.ofSeconds(60)));
    assertThat(a.get("a")).isEqualTo("A");
    awaitInL2(a, "a");
    valkey.stop();
    try {
      // Lookups of other ids, failing on L2, open the breaker (background fills do not feed it).
      AtomicInteger other = new AtomicInteger();
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        a.get("other-" + other.incrementAndGet()); // not found, and not the subject
        return Meters.gauge(metricsA, "warmgate.l2.breaker.state") == 1;
      });
      int calls = origin.calls();
      clock.advance(Duration.ofSeconds(30)); // past l1Ttl, within maxStaleness
      assertThat(a.get("a")).isEqualTo("A");
      assertThat(origin.calls()).as("served the held value").isEqualTo(calls);
      assertThat(Meters.count(metricsA, "warmgate.held.served")).isEqualTo(1);

      clock.advance(Duration.ofSeconds(31)); // past maxStaleness: never served
      assertThat(a.get("a")).isEqualTo("A");
      assertThat(origin.calls()).as("read from the origin").isEqualTo(calls + 1);
    } finally {
      valkey.start();
    }
  }


  @Test
  void secondPodReadsL2WithoutCallingTheOrigin() {
    TieredCache<String> a = pod("a", metricsA);
    TieredCache<String> b = pod("b", metricsB);
    a.get("a");
    awaitInL2(a, "a");

    assertThat(b.get("a")).isEqualTo("A");
    assertThat(origin.calls()).isEqualTo(1);
    assertThat(Meters.count(metricsB, "warmgate.cache.gets", "tier", "l2", "result", "hit")).isEqualTo(1);
    assertThat(metricsB.get("warmgate.load.latency").tag("tier", "l2").timer().count()).isEqualTo(1);
  }

  @Test
  void l1HitDoesNotTouchL2() {
    TieredCache<String> a = pod("a", metricsA);
    a.get("a");
    awaitInL2(a, "a");
    valkey.resetStats();

    for (int i = 0; i < 100; i++) {
      assertThat(a.get("a")).isEqualTo("A");
    }

    assertThat(valkey.commandCalls()).doesNotContainKeys("get", "mget", "set");
  }

  @Test
  void concurrentCallersShareOneL2LookupAndOneOriginLoad() {
    // No fill lease: its commands (its release script's own GET among them) are FillLeaseIT's
    // subject.
    TieredCache<String> a = pod("a", metricsA, x -> x.fillWait(Duration.ZERO));
    origin.block();
    valkey.resetStats();
    List<CompletableFuture<String>> callers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      callers.add(a.getAsync("a"));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> origin.calls() == 1);
    origin.release();

    assertThat(callers).allSatisfy(f -> assertThat(f.join()).isEqualTo("A"));
    assertThat(origin.calls()).isEqualTo(1);
    assertThat(valkey.commandCalls()).containsEntry("get", 1L);
  }

  @Test
  void l1FilledFromL2ExpiresAtTheStalenessBoundNotAfterL1Ttl() {
    TieredCache<String> a = pod("a", metricsA, x -> x.maxStaleness(Duration.ofSeconds(120)));
    TieredCache<String> b = pod("b", metricsB, x -> x.maxStaleness(Duration.ofSeconds(120)));
    a.get("a");
    awaitInL2(a, "a");
    clock.advance(Duration.ofSeconds(100));
    assertThat(b.getAsync("a").join()).isEqualTo("A");
    assertThat(origin.calls()).as("read from L2, 100 s old").isEqualTo(1);
    origin.put("a", "A2");

    clock.advance(Duration.ofSeconds(19));
    assertThat(b.get("a")).as("L1, 119 s old").isEqualTo("A");
    clock.advance(Duration.ofSeconds(2));
    assertThat(b.get("a")).as("121 s old would exceed maxStaleness: reloaded").isEqualTo("A2");
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void notFoundIsSharedThroughL2AsANegativeEntryWithTheNegativeTtl() {
    TieredCache<String> a = pod("a", metricsA, b -> b.negativeTtl(Duration.ofSeconds(10)));
    TieredCache<String> b = pod("b", metricsB, x -> x.negativeTtl(Duration.ofSeconds(10)));
    assertThat(a.get("nope")).isNull();
    awaitInL2(a, "nope");
    assertThat(valkey.envelope(key(a, "nope"), a.schemaHash()).isFound()).isFalse();
    assertThat(valkey.bytes().pttl(key(a, "nope"))).isBetween(1L, 10_000L);

    assertThat(b.get("nope")).isNull();
    assertThat(origin.calls()).isEqualTo(1);
  }

  @Test
  void getAllReadsL2InOneBatchAndLoadsOnlyTheMissesFromTheOrigin() {
    TieredCache<String> a = pod("a", metricsA);
    // No fill lease: its own commands for the miss are FillLeaseIT's subject.
    TieredCache<String> b = pod("b", metricsB, x -> x.fillWait(Duration.ZERO));
    a.getAll(List.of("a", "b"));
    awaitInL2(a, "a");
    awaitInL2(a, "b");
    valkey.resetStats();

    assertThat(b.getAll(List.of("a", "b", "c"))).containsOnly(
        Map.entry("a", "A"), Map.entry("b", "B"), Map.entry("c", "C"));
    assertThat(origin.batches()).containsExactly(List.of("a", "b"), List.of("c"));
    assertThat(valkey.commandCalls()).as("one MGET, split per slot on a cluster")
        .containsEntry("mget", valkey.mgetsFor(List.of(key(b, "a"), key(b, "b"), key(b, "c"))))
        .doesNotContainKey("get");
  }

  @Test
  void normalL2HitCostsOneGetAndNoLockOrTtlRoundTrip() {
    TieredCache<String> a = pod("a", metricsA);
    TieredCache<String> b = pod("b", metricsB);
    a.get("a");
    awaitInL2(a, "a");
    valkey.resetStats();

    b.get("a");

    assertThat(valkey.commandCalls()).containsEntry("get", 1L)
        .doesNotContainKeys("set", "pttl", "ttl", "eval", "evalsha", "mget");
  }

  record DealV1(String name) {}

  record DealV2(String name, int priority) {}

  @Test
  void schemaChangeUsesASeparateKeySpaceWithNoCrossRead() {
    int[] v1Loads = {0};
    int[] v2Loads = {0};
    TieredCache<DealV1> v1 = WarmGate.newBuilder(DealV1.class, ids -> {
          v1Loads[0]++;
          return Map.of("a", new DealV1("old"));
        }).cacheName("deals").valkey(valkey.endpoint()).clock(clock).l2Timeout(Duration.ofMillis(500)).build();
    TieredCache<DealV2> v2 = WarmGate.newBuilder(DealV2.class, ids -> {
          v2Loads[0]++;
          return Map.of("a", new DealV2("new", 7));
        }).cacheName("deals").valkey(valkey.endpoint()).clock(clock).l2Timeout(Duration.ofMillis(500)).build();
    opened.add(v1);
    opened.add(v2);
    assertThat(v1.schemaHash()).isNotEqualTo(v2.schemaHash());

    assertThat(v1.get("a")).isEqualTo(new DealV1("old"));
    awaitInL2(v1, "a");
    assertThat(v2.get("a")).isEqualTo(new DealV2("new", 7));
    awaitInL2(v2, "a");

    assertThat(v1Loads[0]).isEqualTo(1);
    assertThat(v2Loads[0]).isEqualTo(1);
    assertThat(valkey.bytes().keys("wg:deals:*")).containsExactlyInAnyOrder(
        "wg:deals:" + v1.schemaHash() + ":a", "wg:deals:" + v2.schemaHash() + ":a");
  }

  @Test
  void l2HitNearExpiryIsServedAtOnceAndRefreshedByOnePodOnly() {
    TieredCache<String> a = pod("a", metricsA);
    TieredCache<String> b = pod("b", metricsB);
    a.get("a");
    awaitInL2(a, "a");
    origin.put("a", "A2");
    origin.block();
    clock.advance(Duration.ofSeconds(200)); // L1 expired everywhere; 40 s of L2 TTL left ≤ 60 s

    assertThat(a.get("a")).as("served at once while the refresh waits on the origin").isEqualTo("A");
    await().atMost(Duration.ofSeconds(5)).until(() -> origin.calls() == 2);
    assertThat(b.get("a")).isEqualTo("A");
    await().atMost(Duration.ofSeconds(5)).until(() ->
        Meters.count(metricsB, "warmgate.refresh", "result", "lost") == 1);
    origin.release();

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(valkey.envelope(key(a, "a"), a.schemaHash()).fetchedAtMillis()).isEqualTo(clock.millis());
      assertThat(valkey.bytes().exists(new KeySpace("deals", a.schemaHash()).lockKey("a"))).isZero();
    });
    assertThat(Meters.count(metricsA, "warmgate.refresh", "result", "won")).isEqualTo(1);
    assertThat(Meters.count(metricsB, "warmgate.refresh", "result", "won")).isZero();
    assertThat(origin.calls()).as("one reload for the refresh window, across both pods").isEqualTo(2);

    clock.advance(Duration.ofSeconds(61));
    assertThat(b.get("a")).isEqualTo("A2");
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void regressionShortNegativeTtlDoesNotTriggerARefreshOnEveryL2Hit() {
    TieredCache<String> a = pod("a", metricsA, x -> x.negativeTtl(Duration.ofSeconds(10)));
    TieredCache<String> b = pod("b", metricsB, x -> x.negativeTtl(Duration.ofSeconds(10)));
    a.get("nope");
    awaitInL2(a, "nope");
    valkey.resetStats();

    assertThat(b.get("nope")).isNull();

    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() ->
        !valkey.commandCalls().containsKey("set"));
    assertThat(Meters.count(metricsB, "warmgate.refresh", "result", "won")
        + Meters.count(metricsB, "warmgate.refresh", "result", "lost")).isZero();
  }

  @Test
  void lockHeldElsewhereMeansNoRefreshAndNoWaiting() {
    TieredCache<String> a = pod("a", metricsA);
    a.get("a");
    awaitInL2(a, "a");
    valkey.bytes().set(new KeySpace("deals", a.schemaHash()).lockKey("a"), "other-pod".getBytes(StandardCharsets.UTF_8));
    clock.advance(Duration.ofSeconds(200));

    assertThat(a.get("a")).isEqualTo("A");
    await().atMost(Duration.ofSeconds(5)).until(() ->
        Meters.count(metricsA, "warmgate.refresh", "result", "lost") == 1);
    assertThat(origin.calls()).isEqualTo(1);
    assertThat(valkey.bytes().get(new KeySpace("deals", a.schemaHash()).lockKey("a")))
        .as("someone else's lock is left alone").isEqualTo("other-pod".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void l2EntryOlderThanMaxStalenessIsAMiss() {
    TieredCache<String> a = pod("a", metricsA, x -> x.maxStaleness(Duration.ofSeconds(120)));
    TieredCache<String> b = pod("b", metricsB, x -> x.maxStaleness(Duration.ofSeconds(120)));
    a.get("a");
    awaitInL2(a, "a");
    clock.advance(Duration.ofSeconds(130));

    b.get("a");

    assertThat(origin.calls()).isEqualTo(2);
    assertThat(Meters.count(metricsB, "warmgate.cache.gets", "tier", "l2", "result", "miss")).isEqualTo(1);
  }

  @Test
  void originErrorServesAnExpiredL2EntryYoungerThanStaleIfError() {
    TieredCache<String> a = pod("a", metricsA);
    TieredCache<String> b = pod("b", metricsB);
    a.get("a");
    awaitInL2(a, "a");
    clock.advance(Duration.ofSeconds(250)); // past l2Ttl by our clock; the key is still in Redis
    origin.failWith(new IllegalStateException("spanner unavailable"));

    assertThat(b.get("a")).isEqualTo("A");
    assertThat(Meters.count(metricsB, "warmgate.stale.served")).isEqualTo(1);

    clock.advance(Duration.ofSeconds(60));
    assertThatThrownBy(() -> b.get("a"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'a'")
        .hasMessageContaining("spanner unavailable")
        .hasMessageContaining("older than staleIfError=PT5M");
  }

  @Test
  void oversizeValueIsServedButNotWrittenToL2() {
    origin.put("big", "x".repeat(1_000));
    TieredCache<String> a = pod("a", metricsA, x -> x.maxValueBytes(200));

    assertThat(a.get("big")).hasSize(1_000);
    a.get("a");
    awaitInL2(a, "a");

    assertThat(valkey.bytes().exists(key(a, "big"))).isZero();
    assertThat(Meters.count(metricsA, "warmgate.l2.oversize")).isEqualTo(1);
  }

  @Test
  void oddIdsRoundTripThroughL2UnderEscapedKeys() {
    TieredCache<String> a = pod("a", metricsA);
    TieredCache<String> b = pod("b", metricsB);
    List<String> ids = List.of("ünï cødé 🚀", "a:b", "a%3Ab", "with space", "*", "{tag}",
        "x".repeat(TieredCache.DEFAULT_MAX_ID_BYTES));
    for (String id : ids) {
      origin.put(id, "v" + id.hashCode());
      a.get(id);
    }
    for (String id : ids) {
      awaitInL2(a, id);
    }
    for (String id : ids) {
      assertThat(b.get(id)).isEqualTo("v" + id.hashCode());
    }
    assertThat(origin.calls()).isEqualTo(ids.size());
    assertThat(valkey.bytes().keys("wg:deals:*")).hasSize(ids.size())
        .allSatisfy(k -> assertThat(k).matches("wg:deals:[0-9a-f]{12}:[A-Za-z0-9._~%-]+"));
  }
}
