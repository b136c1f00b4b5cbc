package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The L2-miss fill lease between pods (separate caches of one name, each with its own L1, Lettuce
 * connection, meters and origin) on one real redis-server and on a real Redis cluster, over a slow
 * in-memory origin that counts every id it reads. Holders are made slow or failing by holding their
 * origin on a latch; the lease commands every pod sent are counted by the servers
 * ({@code INFO commandstats}). On a cluster an id's value and lease keys share a slot, so its
 * look behind the {@code SET NX} and the holder's write before its release each meet one primary
 * over one connection.
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class FillLeaseIT {

  @RegisterExtension
  final L2Extension valkey;

  /** A fill wait no test reaches unless it is the subject: reaching it would show as a timeout. */
  private static final Duration LONG_WAIT = Duration.ofSeconds(10);
  private static final List<String> IDS = ids(20);

  /** The shared "database" and the origin reads of each id, over all pods. */
  private final Map<String, String> data = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();
  private final List<Pod> pods = new ArrayList<>();

  FillLeaseIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void start() {
    for (String id : IDS) {
      data.put(id, "D" + id);
    }
  }

  @AfterEach
  void close() {
    pods.forEach(p -> p.origin.release());
    pods.forEach(p -> p.cache.close());
  }

  private static List<String> ids(int n) {
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(String.format("deal-%06d", i));
    }
    return List.copyOf(ids);
  }

  /** One pod's origin over the shared data: counts reads per id, takes 150 ms, can be held or fail. */
  private final class PodOrigin implements Origin<String> {
    final AtomicInteger calls = new AtomicInteger();
    volatile long latencyMillis = 150;
    volatile RuntimeException failure;
    private volatile CountDownLatch held;

    /** Later calls wait for {@link #release()}. */
    void hold() {
      held = new CountDownLatch(1);
    }

    void release() {
      CountDownLatch h = held;
      if (h != null) {
        h.countDown();
      }
    }

    @Override
    public Map<String, String> loadAll(Collection<String> ids) throws InterruptedException {
      calls.incrementAndGet();
      ids.forEach(id -> reads.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet());
      CountDownLatch h = held;
      if (h != null && !h.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("test origin was never released");
      }
      TimeUnit.MILLISECONDS.sleep(latencyMillis);
      RuntimeException e = failure;
      if (e != null) {
        throw e;
      }
      Map<String, String> out = new HashMap<>();
      for (String id : ids) {
        String value = data.get(id);
        if (value != null) {
          out.put(id, value);
        }
      }
      return out;
    }
  }

  private record Pod(TieredCache<String> cache, PodOrigin origin, SimpleMeterRegistry meters) {
    long lease(String outcome) {
      return Meters.count(meters, "warmgate.fill.lease", "outcome", outcome);
    }

    long count(String name, String... tags) {
      return Meters.count(meters, name, tags);
    }
  }

  private Pod pod(String name, Duration fillWait) {
    return pod(name, fillWait, UnaryOperator.identity());
  }

  private Pod pod(String name, Duration fillWait, UnaryOperator<WarmGate<String>> settings) {
    PodOrigin origin = new PodOrigin();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    WarmGate<String> builder = WarmGate.newBuilder(String.class, origin)
        .cacheName("deals")
        .valkey(valkey.endpoint())
        .podName(name)
        .meterRegistry(meters)
        .fillWait(fillWait)
        // Generous for a shared 2-core machine: an L2 timeout would skip the lease and blur counts.
        .l2Timeout(Duration.ofSeconds(1));
    Pod pod = new Pod(settings.apply(builder).build(), origin, meters);
    pods.add(pod);
    return pod;
  }

  /** A pod configured as the operator configures one, from {@code WARMGATE_*} variables. */
  private Pod podFromEnvironment(String name, Map<String, String> env) {
    PodOrigin origin = new PodOrigin();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Map<String, String> all = new HashMap<>(env);
    all.putAll(valkey.env());
    all.put(WarmGateConfig.CACHE_NAME, "deals");
    all.put(WarmGateConfig.POD_NAME, name);
    all.put(WarmGateConfig.L2_TIMEOUT, "1s");
    Pod pod = new Pod(WarmGate.fromConfig(WarmGateConfig.from(all), String.class, origin)
        .meterRegistry(meters).fleetServices(false).build(), origin, meters);
    pods.add(pod);
    return pod;
  }

  private long sum(List<Pod> some, String outcome) {
    return some.stream().mapToLong(p -> p.lease(outcome)).sum();
  }

  private long serverCalls(String command) {
    return valkey.commandCalls().getOrDefault(command, 0L);
  }

  /** Waits until the server has run {@code n} SETs: before any value is written, lease attempts. */
  private void awaitLeaseAttempts(long n) {
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
        .until(() -> serverCalls("set") >= n);
  }

  /**
   * Starts {@code pod}'s lookup of {@code id}, which wins the id's lease, and returns once its
   * origin read has begun and is held ({@link PodOrigin#hold()}).
   */
  private CompletableFuture<String> heldLookup(Pod pod, String id) {
    pod.origin.hold();
    CompletableFuture<String> lookup = pod.cache.getAsync(id);
    await().atMost(Duration.ofSeconds(5)).until(() -> pod.origin.calls.get() == 1);
    return lookup;
  }

  private KeySpace keys(Pod pod) {
    return new KeySpace(pod.cache.name(), pod.cache.schemaHash());
  }

  private void awaitNoLeaseLeft() {
    await().atMost(Duration.ofSeconds(5)).until(() -> valkey.bytes().keys("{wg:deals:*}:fill").isEmpty());
  }

  private Map<String, String> expected(List<String> ids) {
    Map<String, String> expected = new LinkedHashMap<>();
    ids.forEach(id -> expected.put(id, "D" + id));
    return expected;
  }

  @Test
  void podsMissingTheSameIdsTogetherReadEachFromTheOriginOnce() throws Exception {
    List<Pod> fleet = List.of(pod("a", LONG_WAIT), pod("b", LONG_WAIT), pod("c", LONG_WAIT),
        pod("d", LONG_WAIT));
    fleet.forEach(p -> p.origin.hold());
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(fleet.size());
    try {
      List<CompletableFuture<Map<String, String>>> results = new ArrayList<>();
      for (Pod p : fleet) {
        results.add(CompletableFuture.supplyAsync(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            throw new CompletionException(e);
          }
          return p.cache.getAll(IDS);
        }, callers));
      }
      go.countDown();
      // Every pod has missed every id and asked for its lease before any origin read returns.
      awaitLeaseAttempts((long) fleet.size() * IDS.size());
      fleet.forEach(p -> p.origin.release());

      for (CompletableFuture<Map<String, String>> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).containsExactlyEntriesOf(expected(IDS));
      }
    } finally {
      callers.shutdownNow();
    }

    assertThat(reads).as("origin reads per id, all pods").hasSize(IDS.size())
        .allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(sum(fleet, "won")).as("one lease per id").isEqualTo(IDS.size());
    assertThat(sum(fleet, "waited")).as("every other pod served each id from L2")
        .isEqualTo((long) (fleet.size() - 1) * IDS.size());
    assertThat(sum(fleet, "lapsed") + sum(fleet, "timeout") + sum(fleet, "skipped")).isZero();
    assertThat(fleet).allSatisfy(p -> assertThat(p.count("warmgate.cache.gets", "tier", "l2",
        "result", "miss")).as("a waited lookup missed L2 when it asked").isEqualTo(IDS.size()));
    awaitNoLeaseLeft();
  }

  /**
   * The holder writes the value, then releases the lease. Should the lease go first, as when the
   * value's server is slow to write and the lease lives on another one, the waiter would find
   * neither, call the lease lapsed and read the origin again. Value and lease share a slot, so the
   * release waits behind the write.
   */
  @Test
  void aWaiterServesTheValueEvenWhenItsServerIsSlowToWriteIt() {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    String id = IDS.get(5);
    CompletableFuture<String> holder = heldLookup(a, id);
    CompletableFuture<String> waiter = b.cache.getAsync(id);
    awaitLeaseAttempts(2);

    // Within the pods' 1 s L2 timeout; the holder's 150 ms read ends inside it.
    valkey.pauseWritesOf(keys(a).valueKey(id), Duration.ofMillis(600));
    a.origin.release();

    assertThat(waiter.join()).isEqualTo("D" + id);
    assertThat(holder.join()).isEqualTo("D" + id);
    assertThat(b.lease("waited")).as("b served a's value").isEqualTo(1);
    assertThat(b.lease("lapsed") + b.lease("timeout") + b.lease("skipped")).isZero();
    assertThat(reads.get(id)).as("origin reads of %s", id).hasValue(1);
    awaitNoLeaseLeft();
  }

  /**
   * One late reply is not L2 down: the waiter's polls time out while its server is stalled for
   * 300 ms (its L2 timeout is 100 ms, too few failures to open its breaker), and it polls again
   * instead of reading the origin, then serves the holder's value.
   */
  @Test
  void aWaiterWhosePollTimesOutPollsAgainInsteadOfReadingTheOrigin() throws Exception {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT, w -> w.l2Timeout(Duration.ofMillis(100)));
    String id = IDS.get(7);
    CompletableFuture<String> holder = heldLookup(a, id);
    CompletableFuture<String> waiter = b.cache.getAsync(id);
    awaitLeaseAttempts(2);

    valkey.pauseAllOf(keys(a).fillKey(id), Duration.ofMillis(300));
    TimeUnit.MILLISECONDS.sleep(700);
    assertThat(reads.get(id)).as("origin reads of %s while a holds it", id).hasValue(1);
    assertThat(waiter).as("b still waits for a after its polls failed").isNotDone();
    assertThat(b.count("warmgate.fill.poll.retries")).isPositive();
    a.origin.release();

    assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo("D" + id);
    assertThat(holder.join()).isEqualTo("D" + id);
    assertThat(b.lease("waited")).isEqualTo(1);
    assertThat(b.lease("skipped") + b.lease("timeout") + b.lease("lapsed")).isZero();
    assertThat(reads.get(id)).as("the holder's read only").hasValue(1);
    awaitNoLeaseLeft();
  }

  @Test
  void whenTheHolderFailsTheWaiterReadsTheOriginItselfAtOnce() {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    String id = IDS.get(1);
    CompletableFuture<String> holder = heldLookup(a, id);
    a.origin.failure = new IllegalStateException("spanner unavailable");

    long start = System.nanoTime();
    CompletableFuture<String> waiter = b.cache.getAsync(id);
    awaitLeaseAttempts(2);
    a.origin.release();

    assertThat(waiter.join()).isEqualTo("D" + id);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(waitedMillis).as("ms, well before the %s fill wait", LONG_WAIT)
        .isLessThan(LONG_WAIT.toMillis() / 2);
    assertThatThrownBy(holder::join).hasCauseInstanceOf(CacheLoadException.class)
        .hasMessageContaining("spanner unavailable");
    assertThat(a.lease("won")).isEqualTo(1);
    assertThat(b.lease("lapsed")).isEqualTo(1);
    assertThat(b.lease("timeout") + b.lease("waited") + b.lease("skipped")).isZero();
    assertThat(reads.get(id)).as("the holder's failed read and the waiter's").hasValue(2);
    awaitNoLeaseLeft();
  }

  @Test
  void aHolderSlowerThanTheFillWaitIsNotWaitedFor() {
    Duration fillWait = Duration.ofMillis(300);
    Pod a = pod("a", fillWait);
    Pod b = pod("b", fillWait);
    String id = IDS.get(2);
    CompletableFuture<String> holder = heldLookup(a, id);

    long start = System.nanoTime();
    assertThat(b.cache.get(id)).isEqualTo("D" + id);
    long waitedNanos = System.nanoTime() - start;

    assertThat(holder).as("the holder is still reading: b did not wait for it").isNotDone();
    assertThat(waitedNanos).as("b waited its fill wait first")
        .isGreaterThanOrEqualTo(fillWait.toNanos());
    assertThat(b.lease("timeout")).isEqualTo(1);
    assertThat(b.lease("waited") + b.lease("lapsed") + b.lease("skipped")).isZero();
    assertThat(reads.get(id)).as("the holder's read and the waiter's own").hasValue(2);

    a.origin.release();
    assertThat(holder.join()).isEqualTo("D" + id);
    awaitNoLeaseLeft();
  }

  @Test
  void theWaiterWaitsForALiveHolderLongerThanItsOwnReadsTake() throws Exception {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    // b times its own origin reads (150 ms each) on ids nobody else asks for.
    for (String other : IDS.subList(10, 20)) {
      assertThat(b.cache.get(other)).isEqualTo("D" + other);
    }
    String id = IDS.get(3);
    CompletableFuture<String> holder = heldLookup(a, id);

    CompletableFuture<String> waiter = b.cache.getAsync(id);
    TimeUnit.MILLISECONDS.sleep(1_500);
    assertThat(waiter).as("ten of its own read times later, b still waits for a").isNotDone();
    a.origin.release();

    assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo("D" + id);
    assertThat(holder.join()).isEqualTo("D" + id);
    assertThat(b.lease("waited")).isEqualTo(1);
    assertThat(b.lease("timeout") + b.lease("lapsed") + b.lease("skipped")).isZero();
    assertThat(reads.get(id)).as("the holder's read only").hasValue(1);
    awaitNoLeaseLeft();
  }

  /**
   * A lease TTL of 600 ms against origin reads of 2 s: the holder renews its 20 leases every
   * 200 ms, with one command for all of them on one server (one per slot on a cluster).
   */
  @Test
  void aHolderSlowerThanTheLeaseTtlRenewsItsLeasesAndIsWaitedFor() throws Exception {
    Duration leaseTtl = Duration.ofMillis(600);
    Pod a = pod("a", LONG_WAIT, w -> w.lockTtl(leaseTtl));
    Pod b = pod("b", LONG_WAIT, w -> w.lockTtl(leaseTtl));
    a.origin.latencyMillis = 2_000;
    valkey.resetStats();
    long start = System.nanoTime();
    CompletableFuture<Map<String, String>> holder = a.cache.getAllAsync(IDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> a.origin.calls.get() == 1);
    Map<String, String> waited = b.cache.getAll(IDS);
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(waited).containsExactlyEntriesOf(expected(IDS));
    assertThat(holder.get(5, TimeUnit.SECONDS)).containsExactlyEntriesOf(expected(IDS));
    assertThat(reads).as("origin reads per id, both pods").hasSize(IDS.size())
        .allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(b.lease("waited")).isEqualTo(IDS.size());
    assertThat(b.lease("timeout") + b.lease("lapsed") + b.lease("skipped")).isZero();
    awaitNoLeaseLeft();
    if (valkey.mode() == L2Mode.STANDALONE) {
      long scripts = serverCalls("eval") + serverCalls("evalsha");
      long renewals = scripts - IDS.size(); // a's compare-and-delete of each lease
      System.out.printf("%d leases held %d ms with a %d ms TTL: %d renewal commands%n",
          IDS.size(), elapsedMillis, leaseTtl.toMillis(), renewals);
      assertThat(renewals).as("one renewal per third of the TTL for all leases, over %d ms",
          elapsedMillis).isBetween(2L, elapsedMillis / (leaseTtl.toMillis() / 3) + 1);
    }
  }

  @Test
  void noLeaseAndNoWaitWhileL2IsDownOrItsBreakerOpen() {
    Pod a = pod("a", LONG_WAIT, w -> w.l2BreakerWait(Duration.ofMinutes(1)));
    a.origin.latencyMillis = 10;
    valkey.stop();
    try {
      for (String id : IDS.subList(0, 10)) {
        long start = System.nanoTime();
        assertThat(a.cache.get(id)).isEqualTo("D" + id);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
            .as("ms for %s: one wait would be the %s fill wait", id, LONG_WAIT)
            .isLessThan(LONG_WAIT.toMillis() / 2);
      }
      await().atMost(Duration.ofSeconds(5))
          .until(() -> Meters.gauge(a.meters, "warmgate.l2.breaker.state") == 1);
    } finally {
      valkey.start();
    }
    valkey.resetStats();

    // L2 is back, the breaker is still open: nothing is sent, not even a lease.
    for (String id : IDS.subList(10, 20)) {
      assertThat(a.cache.get(id)).isEqualTo("D" + id);
    }
    assertThat(valkey.commandCalls()).doesNotContainKeys("get", "mget", "set", "eval");
    assertThat(a.lease("skipped")).isEqualTo(IDS.size());
    assertThat(a.lease("won") + a.lease("waited") + a.lease("lapsed") + a.lease("timeout")).isZero();
    assertThat(reads).hasSize(IDS.size()).allSatisfy((id, n) -> assertThat(n.get()).isEqualTo(1));
  }

  /**
   * The lookups' breaker spares lookups a slow L2; it does not stop the background fill, which has
   * its own bound: a new pod whose lookups miss their budget while it warms up must still fill.
   */
  @Test
  void aFillWritesL2WhileTheLookupsBreakerIsOpen() {
    Pod a = pod("a", LONG_WAIT, w -> w.l2BreakerWait(Duration.ofMinutes(1)));
    a.origin.latencyMillis = 10;
    valkey.stop();
    try {
      for (String id : IDS.subList(0, 10)) {
        assertThat(a.cache.get(id)).isEqualTo("D" + id);
      }
      await().atMost(Duration.ofSeconds(5))
          .until(() -> Meters.gauge(a.meters, "warmgate.l2.breaker.state") == 1);
    } finally {
      valkey.start();
    }
    List<String> batch = IDS.subList(10, 20);

    assertThat(a.cache.fillL2(batch)).isEqualTo(batch.size());

    assertThat(Meters.gauge(a.meters, "warmgate.l2.breaker.state")).as("still open").isEqualTo(1);
    assertThat(a.lease("won")).isEqualTo(batch.size());
    Pod b = pod("b", LONG_WAIT);
    for (String id : batch) {
      assertThat(b.cache.get(id)).isEqualTo("D" + id);
    }
    assertThat(b.origin.calls.get()).as("b found the whole batch in L2").isZero();
    assertThat(reads).hasSize(IDS.size()).allSatisfy((id, n) -> assertThat(n.get()).isEqualTo(1));
    awaitNoLeaseLeft();
  }

  @Test
  void aZeroFillWaitTakesNoLeaseAsBefore() throws Exception {
    Pod a = pod("a", Duration.ZERO);
    Pod b = podFromEnvironment("b", Map.of(WarmGateConfig.FILL_WAIT, "0s"));
    CompletableFuture<Map<String, String>> fromA =
        CompletableFuture.supplyAsync(() -> a.cache.getAll(IDS));
    CompletableFuture<Map<String, String>> fromB =
        CompletableFuture.supplyAsync(() -> b.cache.getAll(IDS));
    assertThat(fromA.get(30, TimeUnit.SECONDS)).containsExactlyEntriesOf(expected(IDS));
    assertThat(fromB.get(30, TimeUnit.SECONDS)).containsExactlyEntriesOf(expected(IDS));

    long originReads = reads.values().stream().mapToLong(AtomicInteger::get).sum();
    await().atMost(Duration.ofSeconds(5)).until(() ->
        a.count("warmgate.l2.writes") + b.count("warmgate.l2.writes") == originReads);
    assertThat(serverCalls("set")).as("SETs: value writes only")
        .isEqualTo(a.count("warmgate.l2.writes") + b.count("warmgate.l2.writes"));
    List<String> valueKeys = IDS.stream().map(keys(a)::valueKey).toList();
    assertThat(serverCalls("mget")).as("one batch read per pod (per slot on a cluster), no lease "
        + "look").isEqualTo(2 * valkey.mgetsFor(valueKeys));
    assertThat(valkey.commandCalls()).doesNotContainKeys("eval", "evalsha");
    assertThat(valkey.bytes().keys("{wg:deals:*}:fill")).isEmpty();
    for (String outcome : List.of("won", "waited", "lapsed", "timeout", "skipped")) {
      assertThat(a.lease(outcome) + b.lease(outcome)).as(outcome).isZero();
    }
  }

  @Test
  void aNotFoundIdIsWaitedForAndServedAsNotFound() {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    CompletableFuture<String> holder = heldLookup(a, "nope");
    CompletableFuture<String> waiter = b.cache.getAsync("nope");
    awaitLeaseAttempts(2);
    a.origin.release();

    assertThat(waiter.join()).isNull();
    assertThat(holder.join()).isNull();
    assertThat(b.lease("waited")).isEqualTo(1);
    assertThat(b.origin.calls).hasValue(0);
    assertThat(reads.get("nope")).hasValue(1);
    assertThat(valkey.envelope(keys(a).valueKey("nope"), a.cache.schemaHash()).isFound()).isFalse();

    assertThat(b.cache.get("nope")).as("the negative entry is in b's L1 now").isNull();
    assertThat(b.count("warmgate.cache.gets", "tier", "l1", "result", "hit")).isEqualTo(1);
    assertThat(b.origin.calls).hasValue(0);
    awaitNoLeaseLeft();
  }

  @Test
  void aFillWaitsForAnotherPodsLookupOfAnIdAndReadsOnlyTheOthers() throws Exception {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    String looked = IDS.get(0);
    CompletableFuture<String> lookup = heldLookup(a, looked);

    CompletableFuture<Integer> fill = CompletableFuture.supplyAsync(() -> b.cache.fillL2(IDS.subList(0, 5)));
    // b reads the ids whose lease it won while it waits for a's.
    await().atMost(Duration.ofSeconds(5)).until(() -> b.origin.calls.get() == 1);
    assertThat(fill).as("the fill waits for the lease a holds").isNotDone();
    a.origin.release();

    assertThat(fill.get(10, TimeUnit.SECONDS)).isEqualTo(5);
    assertThat(lookup.join()).isEqualTo("D" + looked);
    assertThat(reads).as("origin reads per id, both pods").hasSize(5)
        .allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(b.origin.calls).as("one origin call for the four ids b won").hasValue(1);
    assertThat(b.lease("won")).isEqualTo(4);
    assertThat(b.lease("waited")).isEqualTo(1);
    awaitNoLeaseLeft();
  }

  @Test
  void aFillTakesOverTheLeaseOfALookupWhoseOriginFailedAndReadsTheIdOnce() throws Exception {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    String looked = IDS.get(0);
    CompletableFuture<String> lookup = heldLookup(a, looked);
    a.origin.failure = new IllegalStateException("spanner unavailable");

    CompletableFuture<Integer> fill = CompletableFuture.supplyAsync(() -> b.cache.fillL2(IDS.subList(0, 5)));
    await().atMost(Duration.ofSeconds(5)).until(() -> b.origin.calls.get() == 1);
    assertThat(fill).as("the fill waits for the lease a holds").isNotDone();
    a.origin.release();

    assertThat(fill.get(10, TimeUnit.SECONDS)).isEqualTo(5);
    assertThatThrownBy(lookup::join).hasCauseInstanceOf(CacheLoadException.class);
    assertThat(reads.get(looked)).as("a's failed read and b's").hasValue(2);
    assertThat(b.origin.calls).as("the four ids b won, then the one it took over").hasValue(2);
    assertThat(b.lease("won")).isEqualTo(4);
    assertThat(b.lease("lapsed")).isEqualTo(1);
    awaitNoLeaseLeft();
  }

  @Test
  void aLookupOfAnotherPodWaitsForAFillsLease() {
    Pod a = pod("a", LONG_WAIT);
    Pod b = pod("b", LONG_WAIT);
    List<String> batch = IDS.subList(0, 5);
    a.origin.hold();
    CompletableFuture<Integer> fill = CompletableFuture.supplyAsync(() -> a.cache.fillL2(batch));
    await().atMost(Duration.ofSeconds(5)).until(() -> a.origin.calls.get() == 1);

    CompletableFuture<String> lookup = b.cache.getAsync(batch.get(2));
    awaitLeaseAttempts(batch.size() + 1);
    a.origin.release();

    assertThat(lookup.join()).isEqualTo("D" + batch.get(2));
    assertThat(fill.join()).isEqualTo(5);
    assertThat(reads).as("origin reads per id, both pods").hasSize(5)
        .allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(b.lease("waited")).isEqualTo(1);
    awaitNoLeaseLeft();
  }

  @Test
  void lookupsOfThePodThatFillsJoinTheFillInsteadOfReadingTheOriginAgain() {
    Pod a = pod("a", LONG_WAIT);
    List<String> batch = IDS.subList(0, 5);
    a.origin.hold();
    CompletableFuture<Integer> fill = CompletableFuture.supplyAsync(() -> a.cache.fillL2(batch));
    await().atMost(Duration.ofSeconds(5)).until(() -> a.origin.calls.get() == 1);

    CompletableFuture<Map<String, String>> lookups = a.cache.getAllAsync(batch);
    assertThat(lookups).isNotDone();
    a.origin.release();

    assertThat(lookups.join()).containsExactlyEntriesOf(expected(batch));
    assertThat(fill.join()).isEqualTo(5);
    assertThat(a.origin.calls).as("the fill's call only").hasValue(1);
    assertThat(reads).allSatisfy((id, n) -> assertThat(n.get()).as(id).isEqualTo(1));
    assertThat(a.count("warmgate.cache.gets", "tier", "l2", "result", "miss"))
        .as("the lookups joined the fill before reading L2").isZero();
    awaitNoLeaseLeft();
  }

  @Test
  void aFillTheOriginFailsEndsTheLookupsThatJoinedItAndALaterFillReadsAgain() {
    Pod a = pod("a", LONG_WAIT);
    List<String> batch = IDS.subList(0, 3);
    a.origin.hold();
    a.origin.failure = new IllegalStateException("spanner unavailable");
    CompletableFuture<Integer> fill = CompletableFuture.supplyAsync(() -> a.cache.fillL2(batch));
    await().atMost(Duration.ofSeconds(5)).until(() -> a.origin.calls.get() == 1);
    CompletableFuture<String> lookup = a.cache.getAsync(batch.get(0));
    a.origin.release();

    assertThatThrownBy(fill::join).hasCauseInstanceOf(CacheLoadException.class)
        .hasMessageContaining("to fill L2").hasStackTraceContaining("spanner unavailable");
    assertThatThrownBy(() -> lookup.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(CacheLoadException.class).hasStackTraceContaining("spanner unavailable");
    awaitNoLeaseLeft();

    a.origin.failure = null;
    assertThat(a.cache.fillL2(batch)).isEqualTo(3);
    assertThat(a.cache.get(batch.get(0))).isEqualTo("D" + batch.get(0));
  }
}
