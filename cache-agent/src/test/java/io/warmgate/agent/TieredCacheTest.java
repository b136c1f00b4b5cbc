package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The data path without L2: L1, coalescing, negative entries, staleness, origin errors, bad input. */
class TieredCacheTest {

  private final ManualClock clock = new ManualClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B").put("c", "C");
  private TieredCache<String> cache = builder().build();

  private WarmGate<String> builder() {
    return WarmGate.newBuilder(String.class, origin)
        .cacheName("test")
        .clock(clock)
        .meterRegistry(registry);
  }

  @AfterEach
  void close() {
    origin.release();
    cache.close();
  }

  @Test
  void l1HitDoesNotCallTheOrigin() {
    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(cache.get("a")).isEqualTo("A");

    assertThat(origin.calls()).isEqualTo(1);
    assertThat(Meters.count(registry, "warmgate.cache.gets", "tier", "l1", "result", "hit")).isEqualTo(1);
    assertThat(Meters.count(registry, "warmgate.cache.gets", "tier", "l1", "result", "miss")).isEqualTo(1);
    assertThat(Meters.originLoads(registry)).isEqualTo(1);
  }

  @Test
  void l1EntryExpiresAfterL1Ttl() {
    cache.get("a");
    clock.advance(Duration.ofSeconds(59));
    cache.get("a");
    assertThat(origin.calls()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(2));
    cache.get("a");
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void l1ExpiryIsCappedByMaxStalenessSinceTheOriginFetch() {
    cache.close();
    cache = builder().l1Ttl(Duration.ofSeconds(60)).maxStaleness(Duration.ofSeconds(30)).build();
    cache.get("a");
    clock.advance(Duration.ofSeconds(29));
    cache.get("a");
    assertThat(origin.calls()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(2));
    cache.get("a");
    assertThat(origin.calls()).as("older than maxStaleness, so reloaded").isEqualTo(2);
  }

  @Test
  void l1IsBoundedBySize() {
    cache.close();
    SimpleMeterRegistry own = new SimpleMeterRegistry();
    cache = builder().meterRegistry(own).l1MaximumSize(2).build();
    for (int i = 0; i < 50; i++) {
      origin.put("k" + i, "v" + i);
      cache.get("k" + i);
    }
    System.gc(); // the gauge must survive a collection
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(Meters.gauge(own, "warmgate.l1.size")).isEqualTo(2.0));
  }

  @Test
  void concurrentCallersOfOneIdShareOneLoad() throws Exception {
    origin.block();
    ExecutorService callers = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(callers.submit(() -> cache.get("a")));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> origin.calls() == 1);
      origin.release();
      for (Future<String> r : results) {
        assertThat(r.get(10, TimeUnit.SECONDS)).isEqualTo("A");
      }
      assertThat(origin.calls()).isEqualTo(1);
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void regressionCompletedLoadLeftInFlightServedAValueOlderThanTheTtl() {
    String[] seenByContinuation = new String[1];
    // The continuation runs inside the completion of the shared load, on the loading thread.
    CompletableFuture<Void> done = cache.getAsync("a").thenRun(() -> {
      origin.put("a", "A2");
      clock.advance(Duration.ofSeconds(61));
      seenByContinuation[0] = cache.get("a");
    });

    done.join();
    assertThat(seenByContinuation[0]).as("L1 expired: a new load, not the finished one").isEqualTo("A2");
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void failedLoadIsRemovedSoTheNextCallLoadsAgain() {
    origin.failWith(new IllegalStateException("spanner unavailable"));

    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'a'")
        .hasMessageContaining("spanner unavailable")
        .hasMessageContaining("no stale value is held")
        .hasCauseInstanceOf(IllegalStateException.class)
        .satisfies(e -> assertThat(((CacheLoadException) e).id()).isEqualTo("a"));
    assertThat(Meters.count(registry, "warmgate.origin.errors")).isEqualTo(1);

    origin.heal();
    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void cancellingOneCallerDoesNotCancelTheSharedLoad() {
    origin.block();
    CompletableFuture<String> quitter = cache.getAsync("a");
    CompletableFuture<String> patient = cache.getAsync("a");
    await().atMost(Duration.ofSeconds(5)).until(() -> origin.calls() == 1);

    quitter.cancel(true);
    origin.release();

    assertThat(patient.join()).isEqualTo("A");
    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(origin.calls()).isEqualTo(1);
  }

  @Test
  void callerThatTimesOutLeavesTheLoadToFinishAndFillL1() {
    origin.block();
    CompletableFuture<String> impatient = cache.getAsync("a").orTimeout(10, TimeUnit.MILLISECONDS);
    assertThatThrownBy(impatient::join).hasCauseInstanceOf(TimeoutException.class);

    origin.release();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(cache.getAsync("a").getNow(null)).isEqualTo("A");
    });
    assertThat(origin.calls()).isEqualTo(1);
  }

  @Test
  void notFoundIsCachedAsANegativeEntryWithTheL1Ttl() {
    assertThat(cache.get("missing")).isNull();
    assertThat(cache.get("missing")).isNull();
    assertThat(origin.calls()).isEqualTo(1);

    origin.put("missing", "now here");
    clock.advance(Duration.ofSeconds(61));
    assertThat(cache.get("missing")).isEqualTo("now here");
  }

  @Test
  void negativeTtlAppliesToNotFoundEntriesOnly() {
    cache.close();
    cache = builder().negativeTtl(Duration.ofSeconds(5)).build();
    cache.get("a");
    cache.get("missing");
    clock.advance(Duration.ofSeconds(6));
    cache.get("a");
    cache.get("missing");

    assertThat(origin.batches()).containsExactly(List.of("a"), List.of("missing"), List.of("missing"));
  }

  @Test
  void originErrorServesAStaleValueYoungerThanStaleIfError() {
    cache.get("a");
    clock.advance(Duration.ofSeconds(90));
    origin.failWith(new IllegalStateException("spanner unavailable"));

    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(Meters.count(registry, "warmgate.stale.served")).isEqualTo(1);

    assertThat(cache.get("a")).as("a stale value is not cached: the origin is asked again").isEqualTo("A");
    assertThat(origin.calls()).isEqualTo(3);
  }

  @Test
  void originErrorFailsOnceTheValueIsOlderThanStaleIfError() {
    cache.close();
    cache = builder().staleIfError(Duration.ofMinutes(2)).build();
    cache.get("a");
    clock.advance(Duration.ofMinutes(2).plusSeconds(1));
    origin.failWith(new IllegalStateException("spanner unavailable"));

    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'a'")
        .hasMessageContaining("spanner unavailable");
    assertThat(Meters.count(registry, "warmgate.stale.served")).isZero();
  }

  @Test
  void originErrorIsNeverCached() {
    origin.failWith(new IllegalStateException("boom"));
    assertThatThrownBy(() -> cache.get("b")).isInstanceOf(CacheLoadException.class);
    origin.heal();
    assertThat(cache.get("b")).isEqualTo("B");
  }

  @Test
  void getAllLoadsAllMissesWithOneOriginCall() {
    cache.get("a");

    Map<String, String> all = cache.getAll(List.of("a", "b", "c", "missing", "b"));

    assertThat(all).containsExactly(Map.entry("a", "A"), Map.entry("b", "B"), Map.entry("c", "C"));
    assertThat(origin.batches()).containsExactly(List.of("a"), List.of("b", "c", "missing"));
  }

  @Test
  void getAllAsyncSharesLoadsWithGetAsync() {
    origin.block();
    CompletableFuture<String> one = cache.getAsync("a");
    CompletableFuture<Map<String, String>> all = cache.getAllAsync(List.of("a", "b"));
    origin.release();

    assertThat(all.join()).containsOnly(Map.entry("a", "A"), Map.entry("b", "B"));
    assertThat(one.join()).isEqualTo("A");
    // "a" rides on getAsync's load; the two loads run on loader threads in either order.
    assertThat(origin.batches()).containsExactlyInAnyOrder(List.of("a"), List.of("b"));
  }

  @Test
  void getAllFailsNamingTheIdWhenTheOriginFails() {
    origin.failWith(new IllegalStateException("boom"));
    assertThatThrownBy(() -> cache.getAll(List.of("a", "b")))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageMatching("(?s).*'[ab]'.*boom.*");
    assertThatThrownBy(() -> cache.getAllAsync(List.of("c")).join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(CacheLoadException.class);
  }

  @Test
  void originReturningNullIsAnOriginError() {
    cache.close();
    cache = WarmGate.newBuilder(String.class, ids -> null).cacheName("test").clock(clock).build();
    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("returned null");
  }

  @Test
  void nullOrEmptyIdIsRefusedNamingIt() {
    assertThatThrownBy(() -> cache.get(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("id must not be null");
    assertThatThrownBy(() -> cache.get("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("id must not be empty");
    assertThatThrownBy(() -> cache.getAsync(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cache.getAll(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ids must not be null");
    assertThatThrownBy(() -> cache.getAll(java.util.Arrays.asList("a", null)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("id must not be null");
    assertThat(origin.calls()).isZero();
  }

  @Test
  void oddIdsWork() {
    String huge = "x".repeat(TieredCache.DEFAULT_MAX_ID_BYTES);
    for (String id : List.of("ünï cødé 🚀", "a:b", "with space", "*", "{tag}", huge)) {
      origin.put(id, "v-" + id.length());
      assertThat(cache.get(id)).isEqualTo("v-" + id.length());
    }
  }

  @Test
  void tooLongIdIsRefusedClearly() {
    // 257 chars, well below 512, but 514 bytes in UTF-8: the limit is on bytes.
    String tooLong = "\u00e9".repeat(257);
    assertThatThrownBy(() -> cache.get(tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 514 bytes long in UTF-8 (257 chars)")
        .hasMessageContaining("ids longer than 512 bytes are refused (maxIdBytes, "
            + "WARMGATE_MAX_ID_BYTES)");
    assertThatThrownBy(() -> cache.getAsync(tooLong)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> cache.getAll(List.of("a", tooLong)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(origin.calls()).isZero();
  }

  @Test
  void idsUpToTheLimitInUtf8BytesAreServed() {
    // 512 bytes each: 1-, 2-, 3- and 4-byte (surrogate pair) characters.
    for (String id : List.of("x".repeat(512), "\u00e9".repeat(256), "\u20ac".repeat(170) + "xy",
        "\uD83D\uDE80".repeat(128))) {
      origin.put(id, "v");
      assertThat(cache.get(id)).as("%d chars", id.length()).isEqualTo("v");
      assertThatThrownBy(() -> cache.get(id + "x")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is 513 bytes long in UTF-8");
    }
  }

  @Test
  void maxIdBytesIsConfigurableWithinItsRange() {
    cache.close();
    cache = builder().maxIdBytes(4).build();
    origin.put("\u00e9\u00e9", "two");
    assertThat(cache.get("\u00e9\u00e9")).isEqualTo("two");
    assertThat(cache.maxIdBytes()).isEqualTo(4);
    assertThatThrownBy(() -> cache.get("abcde")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 5 bytes long in UTF-8 (5 chars); ids longer than 4 bytes");
    assertThatThrownBy(() -> builder().maxIdBytes(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxIdBytes must be from 1 to 65536: 0");
    assertThatThrownBy(() -> builder().maxIdBytes(65_537))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void regressionLoadRejectedByTheExecutorFailsItsCallersAndLeavesNoZombie() {
    cache.close();
    java.util.concurrent.atomic.AtomicBoolean full = new java.util.concurrent.atomic.AtomicBoolean(true);
    cache = builder().executor(task -> {
      if (full.get()) {
        throw new java.util.concurrent.RejectedExecutionException("queue full");
      }
      task.run();
    }).build();

    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("executor rejected the task (queue full)");

    full.set(false);
    assertThat(cache.get("a")).as("the failed load left nothing in flight").isEqualTo("A");
  }

  @Test
  void closedCacheRefusesCalls() {
    cache.close();
    cache.close();
    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cache 'test' is closed");
  }

  @Test
  void l1HitAllocatesNothing() {
    cache.close();
    // The system clock: a test clock would allocate an Instant per read.
    cache = WarmGate.newBuilder(String.class, origin).cacheName("test").build();
    cache.get("a");
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long self = Thread.currentThread().getId();
    for (int i = 0; i < 200_000; i++) {
      cache.get("a");
    }
    int calls = 1_000_000;
    long before = threads.getThreadAllocatedBytes(self);
    for (int i = 0; i < calls; i++) {
      if (cache.get("a") == null) {
        throw new AssertionError();
      }
    }
    long allocated = threads.getThreadAllocatedBytes(self) - before;
    // Under one byte per hit: no object per hit (the smallest is 16 bytes). What remains is
    // Caffeine's amortized buffer maintenance.
    assertThat(allocated).as("bytes allocated by %d L1 hits", calls).isLessThan(calls);
  }

  @Test
  void l1HitsAndMissesAreCountedPerTier() throws Exception {
    cache.getAll(List.of("a", "b"));
    cache.get("a");
    cache.getAsync("b").get();
    assertThat(Meters.count(registry, "warmgate.cache.gets", "tier", "l1", "result", "hit")).isEqualTo(2);
    assertThat(Meters.count(registry, "warmgate.cache.gets", "tier", "l1", "result", "miss")).isEqualTo(2);
    assertThat(Meters.count(registry, "warmgate.origin.keys")).isEqualTo(2);
    assertThat(registry.get("warmgate.load.latency").tag("tier", "origin").timer().count()).isEqualTo(1);
  }
}
