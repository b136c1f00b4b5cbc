package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code invalidate} across pods and schema key spaces, on one real redis-server and on a real
 * Redis cluster: pods are caches of one name with fleet services (registry, invalidation stream),
 * two on the old value type and one on a new one, as during a canary release, over one in-memory
 * "database" whose rows the test changes. L1 lives a minute, so only an invalidation makes a pod
 * see a change within the test.
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class InvalidationIT {

  /** The value type of the new version: another schema hash, another L2 key space. */
  record DealV2(String name, int version) {}

  /** What every pod must see within this of the invalidation call. */
  private static final Duration BOUND = Duration.ofSeconds(2);
  /**
   * The longest an invalidation call may take before it returns or throws: its steps are bounded
   * by the 2 s command and L2 timeouts.
   */
  private static final Duration CALL_BOUND = Duration.ofSeconds(10);
  /**
   * Within this of Valkey coming back, every listener has read the stream again (its retries back
   * off to 2 s at most) and dropped its L1.
   */
  private static final Duration RESYNC_BOUND = Duration.ofSeconds(5);

  @RegisterExtension
  final L2Extension valkey;

  private final Map<String, String> rows = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
  private final List<AutoCloseable> pods = new ArrayList<>();

  InvalidationIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable pod : pods) {
      pod.close();
    }
  }

  /** The database: reading counts each id; {@code gate}, when set, holds reads after taking the rows. */
  private final class Rows {
    volatile CountDownLatch gate;

    Map<String, String> read(Collection<String> ids) throws InterruptedException {
      Map<String, String> found = new LinkedHashMap<>();
      for (String id : ids) {
        reads.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        String row = rows.get(id);
        if (row != null) {
          found.put(id, row);
        }
      }
      CountDownLatch g = gate;
      if (g != null && !g.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("test origin was never released");
      }
      return found;
    }
  }

  private final Rows database = new Rows();

  /**
   * The pods' lock TTL, and their origin's timeout unless a test says otherwise: an invalidation's
   * second pass runs the longer of the two after its first.
   */
  private static final Duration LOCK_TTL = Duration.ofSeconds(1);

  /** {@code origin} declaring {@code timeout} as its calls' bound. */
  private static <V> Origin<V> within(Duration timeout, Origin<V> origin) {
    return new Origin<>() {
      @Override
      public Map<String, V> loadAll(Collection<String> ids) throws Exception {
        return origin.loadAll(ids);
      }

      @Override
      public Duration timeout() {
        return timeout;
      }
    };
  }

  private <V> TieredCache<V> pod(String name, Class<V> type, Origin<V> origin,
      SimpleMeterRegistry meters) {
    return pod(name, type, origin, meters, LOCK_TTL);
  }

  private <V> TieredCache<V> pod(String name, Class<V> type, Origin<V> origin,
      SimpleMeterRegistry meters, Duration originTimeout) {
    TieredCache<V> cache = valkey.configure(WarmGate.newBuilder(type, within(originTimeout, origin)))
        .cacheName("deals")
        .podName(name)
        .podNamespace("shop")
        .meterRegistry(meters)
        .l1Ttl(Duration.ofMinutes(1))
        .l2Ttl(Duration.ofMinutes(4))
        .lockTtl(LOCK_TTL)
        .l2Timeout(Duration.ofSeconds(1))
        .fleetServices(true)
        .build();
    pods.add(cache);
    await().atMost(Duration.ofSeconds(10)).until(() ->
        valkey.strings().hexists(new KeySpace("deals", cache.schemaHash()).agentsKey(),
            "shop/" + name));
    return cache;
  }

  private TieredCache<String> oldPod(String name) {
    return oldPod(name, new SimpleMeterRegistry());
  }

  private TieredCache<String> oldPod(String name, SimpleMeterRegistry meters) {
    return pod(name, String.class, database::read, meters);
  }

  private TieredCache<DealV2> newPod(String name) {
    return newPod(name, new SimpleMeterRegistry());
  }

  private TieredCache<DealV2> newPod(String name, SimpleMeterRegistry meters) {
    return pod(name, DealV2.class, ids -> {
      Map<String, DealV2> out = new LinkedHashMap<>();
      database.read(ids).forEach((id, row) -> out.put(id, new DealV2(row, 2)));
      return out;
    }, meters);
  }

  private static String valueKey(TieredCache<?> pod, String id) {
    return new KeySpace("deals", pod.schemaHash()).valueKey(id);
  }

  /**
   * The value of {@code id} in {@code pod}'s key space, once the pods' clock has passed the time
   * its origin read began: an invalidation from now on has its first pass after that read, so its
   * second pass deletes this value when it is written back.
   */
  private byte[] readBeforeNow(TieredCache<?> pod, String id) {
    String key = valueKey(pod, id);
    long readAt = await().atMost(Duration.ofSeconds(5))
        .until(() -> valkey.envelope(key, pod.schemaHash()), Objects::nonNull).fetchedAtMillis();
    await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(1))
        .until(() -> System.currentTimeMillis() > readAt);
    return valkey.bytes().get(key);
  }

  /** The entries of the invalidation stream that name {@code id}, oldest first. */
  private List<Map<String, String>> entriesNaming(String id) {
    String stream = "{wg:deals}:invalidations"; // the cache's stream, one for every key space
    return valkey.strings().xrange(stream, Range.create("-", "+")).stream()
        .map(StreamMessage::getBody)
        .filter(body -> String.valueOf(body.get("ids")).contains("\"" + id + "\""))
        .toList();
  }

  /** When the first invalidation of {@code id} was issued, epoch ms as the stream records it. */
  private long issuedAt(String id) {
    return Long.parseLong(entriesNaming(id).get(0).get("at"));
  }

  /**
   * Waits until the second pass of the invalidation of {@code id} has deleted the old value
   * written back under {@code key} and has told every pod (its own stream entry, appended once
   * all of its deletions completed).
   */
  private void awaitSecondPassDeleted(String id, String key) {
    await("second pass of " + id).atMost(Duration.ofSeconds(1).plus(BOUND))
        .pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
          assertThat(valkey.strings().exists(key)).as("the old value of %s written back", id)
              .isZero();
          assertThat(entriesNaming(id)).as("invalidation stream entries naming %s", id).hasSize(2);
        });
  }

  private int reads(String id) {
    AtomicInteger n = reads.get(id);
    return n == null ? 0 : n.get();
  }

  @Test
  void aChangedRowReachesEveryPodOfEveryLiveKeySpaceWithinTheBound() throws Exception {
    rows.put("deal-1", "paused: no");
    rows.put("deal-2", "other");
    rows.put("deal-3", "marker");
    TieredCache<String> a = oldPod("old-a");
    TieredCache<String> b = oldPod("old-b");
    TieredCache<DealV2> canary = newPod("new-a");
    assertThat(canary.schemaHash()).isNotEqualTo(a.schemaHash());
    for (TieredCache<?> pod : List.of(a, b, canary)) {
      pod.getAll(List.of("deal-1", "deal-2"));
    }
    // deal-3, invalidated with deal-1, marks when their second pass has run: a copy of its value
    // read before the change is written back after the first pass, as a slow load would.
    a.get("deal-3");
    String marker = valueKey(a, "deal-3");
    byte[] readBefore = readBeforeNow(a, "deal-3");
    int before = reads("deal-1");
    int otherBefore = reads("deal-2");

    rows.put("deal-1", "paused: yes");
    long start = System.nanoTime();
    a.invalidateAll(List.of("deal-1", "deal-3"));
    valkey.bytes().set(marker, readBefore);
    await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
      assertThat(a.get("deal-1")).isEqualTo("paused: yes");
      assertThat(b.get("deal-1")).isEqualTo("paused: yes");
      assertThat(canary.get("deal-1")).isEqualTo(new DealV2("paused: yes", 2));
    });
    System.out.printf("invalidation seen by all 3 pods of 2 key spaces after %d ms (%s)%n",
        (System.nanoTime() - start) / 1_000_000, valkey.mode());
    // One read per key space (the old pods share the old one's value through L2), and nothing
    // else was read again.
    assertThat(reads("deal-1") - before).as("origin reads of deal-1 after its change").isEqualTo(2);
    int afterFirstPass = reads("deal-1");
    assertThat(reads("deal-2")).isEqualTo(otherBefore);
    assertThat(b.get("deal-2")).isEqualTo("other");

    // The second pass, a lock TTL (1 s) later, deletes the marker's old value and keeps the
    // values read after the first: the change costs no further read.
    awaitSecondPassDeleted("deal-3", marker);
    assertThat(valkey.strings().exists(valueKey(a, "deal-1"), valueKey(canary, "deal-1")))
        .as("deal-1's values read after the first pass, still in both key spaces").isEqualTo(2);
    for (TieredCache<?> pod : List.of(a, b, canary)) {
      pod.get("deal-1");
    }
    assertThat(reads("deal-1")).isEqualTo(afterFirstPass);
  }

  @Test
  void aLoadThatReadTheOldRowBeforeTheChangeIsUndoneOneLockTtlLater() throws Exception {
    rows.put("deal-1", "v1");
    TieredCache<String> writer = oldPod("old-a");
    TieredCache<String> slow = oldPod("old-b");
    database.gate = new CountDownLatch(1);
    // The slow pod reads v1, then stalls before writing it to L1 and L2.
    CompletableFuture<String> stale = CompletableFuture.supplyAsync(() -> slow.get("deal-1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> reads("deal-1") == 1);
    rows.put("deal-1", "v2");
    CountDownLatch held = database.gate;
    database.gate = null;
    writer.invalidate("deal-1");
    held.countDown();
    assertThat(stale.get(5, TimeUnit.SECONDS)).isEqualTo("v1");
    // The late write put v1 back; the invalidation's second pass, a lock TTL (1 s) later,
    // removes it from L2 and from every L1.
    await().atMost(Duration.ofSeconds(1).plus(BOUND)).pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> {
          assertThat(slow.get("deal-1")).isEqualTo("v2");
          assertThat(writer.get("deal-1")).isEqualTo("v2");
        });
  }

  /**
   * A load slower than the lock TTL but within its origin's timeout (3 s here) reads the old row
   * before a change and writes it after the change's first pass: the second pass waits for the
   * origin's timeout, not the lock TTL, and removes it.
   */
  @Test
  void aLoadSlowerThanTheLockTtlButWithinTheOriginTimeoutIsUndoneToo() throws Exception {
    Duration originTimeout = Duration.ofSeconds(3);
    rows.put("deal-s", "v1");
    TieredCache<String> writer = pod("old-a", String.class, database::read, new SimpleMeterRegistry(),
        originTimeout);
    TieredCache<String> slow = pod("old-b", String.class, database::read, new SimpleMeterRegistry(),
        originTimeout);
    database.gate = new CountDownLatch(1);
    CompletableFuture<String> stale = CompletableFuture.supplyAsync(() -> slow.get("deal-s"));
    await().atMost(Duration.ofSeconds(5)).until(() -> reads("deal-s") == 1);
    rows.put("deal-s", "v2");
    CountDownLatch held = database.gate;
    database.gate = null;
    long invalidatedAt = System.nanoTime();
    writer.invalidate("deal-s");
    // Held past the lock TTL (1 s), released within the origin's timeout.
    await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
        .until(() -> System.nanoTime() - invalidatedAt > Duration.ofMillis(1_800).toNanos());
    held.countDown();
    assertThat(stale.get(5, TimeUnit.SECONDS)).isEqualTo("v1");
    await("v1 written back by the slow load").atMost(Duration.ofSeconds(2))
        .until(() -> valkey.strings().exists(valueKey(slow, "deal-s")) == 1);

    await().atMost(originTimeout.plus(BOUND)).pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> {
          assertThat(slow.get("deal-s")).isEqualTo("v2");
          assertThat(writer.get("deal-s")).isEqualTo("v2");
        });
  }

  /** An answer later than the origin's timeout is served to its caller and cached nowhere. */
  @Test
  void anAnswerPastTheOriginTimeoutIsServedButNotCached() throws Exception {
    rows.put("deal-l", "v1");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    TieredCache<String> pod = pod("old-a", String.class, ids -> {
      Map<String, String> found = database.read(ids);
      Thread.sleep(1_300);
      return found;
    }, meters, LOCK_TTL);

    assertThat(pod.get("deal-l")).isEqualTo("v1");
    assertThat(Meters.count(meters, "warmgate.origin.late")).isEqualTo(1);
    assertThat(valkey.strings().exists(valueKey(pod, "deal-l"))).as("L2 value written").isZero();
    rows.put("deal-l", "v2");
    assertThat(pod.get("deal-l")).as("not in L1 either: read again").isEqualTo("v2");
    assertThat(reads("deal-l")).isEqualTo(2);
  }

  @Test
  void eachIdOfABurstGetsItsSecondPassOneLockTtlAfterItsOwnFirst() throws Exception {
    rows.put("deal-x", "v1");
    rows.put("deal-y", "v1");
    rows.put("deal-m", "v1");
    TieredCache<String> writer = oldPod("old-a");
    // Its load is held past the writer's second pass of deal-x, over a second: a timeout longer
    // than that keeps its late answer cacheable, so that deal-y's own second pass has to undo it.
    TieredCache<String> slow = pod("old-b", String.class, database::read, new SimpleMeterRegistry(),
        Duration.ofSeconds(10));
    database.gate = new CountDownLatch(1);
    CompletableFuture<Map<String, String>> stale = CompletableFuture.supplyAsync(
        () -> slow.getAll(List.of("deal-x", "deal-y")));
    await().atMost(Duration.ofSeconds(5)).until(() -> reads("deal-y") == 1);
    rows.put("deal-x", "v2");
    rows.put("deal-y", "v2");
    CountDownLatch held = database.gate;
    database.gate = null;
    // deal-m, invalidated with deal-x, marks when their second pass has run: a copy of its value
    // read before the change is written back after the first pass, as a slow load would.
    writer.get("deal-m");
    String marker = valueKey(writer, "deal-m");
    byte[] readBefore = readBeforeNow(writer, "deal-m");
    writer.invalidateAll(List.of("deal-x", "deal-m"));
    valkey.bytes().set(marker, readBefore);
    // deal-y's first pass comes half a lock TTL (1 s) after deal-x's, measured on the times the
    // stream records: the same burst, and due half a second after it.
    long firstPassX = issuedAt("deal-m");
    await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10))
        .until(() -> System.currentTimeMillis() >= firstPassX + 500); // the pods' clock
    writer.invalidate("deal-y");
    assertThat(valkey.strings().exists(marker)).as("deal-x's second pass not run yet when deal-y "
        + "was invalidated").isEqualTo(1);
    // Both stale values are written back once deal-x's second pass has run, half a second before
    // deal-y's is due: deal-y's second pass must come a lock TTL after its own first pass, not
    // with deal-x's.
    awaitSecondPassDeleted("deal-m", marker);
    held.countDown();
    assertThat(stale.get(5, TimeUnit.SECONDS)).containsEntry("deal-y", "v1");
    await().atMost(Duration.ofSeconds(1).plus(BOUND)).pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> {
          assertThat(slow.get("deal-y")).isEqualTo("v2");
          assertThat(writer.get("deal-y")).isEqualTo("v2");
        });
  }

  @Test
  void manyIdsAtOnceAndBadIdsAreRefusedBeforeAnythingIsDeleted() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      ids.add("deal-" + i);
      rows.put("deal-" + i, "v1");
    }
    TieredCache<String> a = oldPod("old-a");
    TieredCache<String> b = oldPod("old-b");
    b.getAll(ids);
    ids.forEach(id -> rows.put(id, "v2"));

    List<String> withBad = new ArrayList<>(ids);
    withBad.add("");
    assertThatThrownBy(() -> a.invalidateAll(withBad))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be empty");
    assertThat(b.get("deal-7")).as("nothing invalidated by a refused call").isEqualTo("v1");

    a.invalidateAll(ids);
    await().atMost(BOUND).untilAsserted(() ->
        assertThat(b.getAll(ids).values()).containsOnly("v2"));
  }

  /** One {@code invalidateAll} call of the loop: when it started, how long it took, what it threw. */
  private record Call(long startNanos, long millis, Throwable failure) {}

  @Test
  void aValkeyRestartedDuringInvalidationsLeavesNoPodServingAStaleValue() throws Exception {
    List<String> churn = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      churn.add("deal-" + i);
      rows.put("deal-" + i, "v1");
    }
    rows.put("given-up", "before");
    rows.put("later", "before");
    SimpleMeterRegistry bMeters = new SimpleMeterRegistry();
    SimpleMeterRegistry canaryMeters = new SimpleMeterRegistry();
    TieredCache<String> a = oldPod("old-a");
    TieredCache<String> b = oldPod("old-b", bMeters);
    TieredCache<DealV2> canary = newPod("new-a", canaryMeters);
    for (TieredCache<?> pod : List.of(a, b, canary)) {
      pod.get("given-up");
    }

    // A caller invalidating 200 ids again and again, before, during and after the restart.
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stopLoop = new AtomicBoolean();
    Thread loop = new Thread(() -> {
      while (!stopLoop.get()) {
        long t0 = System.nanoTime();
        Throwable failure = null;
        try {
          a.invalidateAll(churn);
        } catch (Throwable e) {
          failure = e;
        }
        calls.add(new Call(t0, (System.nanoTime() - t0) / 1_000_000, failure));
        pause(20); // a caller's pace, not a wait for anything
      }
    }, "invalidating-loop");
    loop.setDaemon(true);
    loop.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> succeeded(calls, 0) >= 3);

      valkey.stop();
      long stoppedAt = System.nanoTime();
      // A row changes while Valkey is down; its invalidation fails and the caller gives up, so
      // only the listeners' dropping L1 whole on the restart makes the pods see the change.
      rows.put("given-up", "after");
      assertThatThrownBy(() -> a.invalidate("given-up"))
          .as("an invalidation while Valkey is down fails").isInstanceOf(IllegalStateException.class);
      await().atMost(Duration.ofSeconds(10)).until(() -> failed(calls, stoppedAt) >= 3);
      // Valkey down: the other pods keep their L1 values (l1Ttl is a minute), as documented.
      assertThat(b.get("given-up")).isEqualTo("before");
      assertThat(canary.get("given-up")).isEqualTo(new DealV2("before", 2));

      valkey.start(); // the same port, empty: the stream and its counter are gone
      long restartedAt = System.nanoTime();
      await().atMost(RESYNC_BOUND).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
        assertThat(a.get("given-up")).isEqualTo("after");
        assertThat(b.get("given-up")).isEqualTo("after");
        assertThat(canary.get("given-up")).isEqualTo(new DealV2("after", 2));
      });
      long givenUpFreshAt = System.nanoTime();
      // The listeners could not read what they missed: each dropped its L1 whole.
      assertThat(bMeters.get("warmgate.invalidation.resyncs").counter().count()).isPositive();
      assertThat(canaryMeters.get("warmgate.invalidation.resyncs").counter().count()).isPositive();

      // Valkey is back: a change is invalidated by a caller that retries until the call succeeds
      // (the L2 circuit breaker of the invalidating pod may still be open), and every pod,
      // reading the new stream from its new counter, serves the new value within the bound.
      assertThat(b.get("later")).isEqualTo("before");
      assertThat(canary.get("later")).isEqualTo(new DealV2("before", 2));
      rows.put("later", "after");
      long changedAt = System.nanoTime();
      await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
          .ignoreExceptionsInstanceOf(IllegalStateException.class)
          .until(() -> {
            a.invalidate("later");
            return true;
          });
      long invalidatedAt = System.nanoTime();
      await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
        assertThat(a.get("later")).isEqualTo("after");
        assertThat(b.get("later")).isEqualTo("after");
        assertThat(canary.get("later")).isEqualTo(new DealV2("after", 2));
      });
      long laterFreshAt = System.nanoTime();

      await().atMost(Duration.ofSeconds(10)).until(() -> succeeded(calls, invalidatedAt) >= 3);
      stopLoop.set(true);
      loop.join(CALL_BOUND.toMillis());
      assertThat(loop.isAlive()).as("the invalidating loop ended").isFalse();
      List<Call> all;
      synchronized (calls) {
        all = List.copyOf(calls);
      }
      for (Call call : all) {
        assertThat(call.millis()).as("every call returns or throws within %s", CALL_BOUND)
            .isLessThanOrEqualTo(CALL_BOUND.toMillis());
        if (call.failure() != null) {
          assertThat(call.failure()).as("a failed call throws IllegalStateException")
              .isInstanceOf(IllegalStateException.class);
        }
      }
      System.out.printf("valkey restart during invalidations (%s): %d calls of 200 ids, %d failed, "
              + "the longest %d ms; down %d ms; L1 dropped and the id changed meanwhile served "
              + "fresh by all 3 pods %d ms after the restart; a later change's invalidation "
              + "succeeded %d ms after the change (retried every 100 ms) and was served by all 3 "
              + "pods %d ms later%n", valkey.mode(), all.size(),
          all.stream().filter(c -> c.failure() != null).count(),
          all.stream().mapToLong(Call::millis).max().orElse(0),
          (restartedAt - stoppedAt) / 1_000_000, (givenUpFreshAt - restartedAt) / 1_000_000,
          (invalidatedAt - changedAt) / 1_000_000, (laterFreshAt - invalidatedAt) / 1_000_000);
    } finally {
      stopLoop.set(true);
      loop.join(CALL_BOUND.toMillis());
    }
  }

  private static long succeeded(List<Call> calls, long sinceNanos) {
    synchronized (calls) {
      return calls.stream().filter(c -> c.startNanos() >= sinceNanos && c.failure() == null).count();
    }
  }

  private static long failed(List<Call> calls, long sinceNanos) {
    synchronized (calls) {
      return calls.stream().filter(c -> c.startNanos() >= sinceNanos && c.failure() != null).count();
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
