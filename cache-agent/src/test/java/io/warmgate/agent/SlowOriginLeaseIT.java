package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fill lease while the origin is slow, as a database is when a whole fleet misses at once: a
 * fleet of pods (separate caches of one name, each with its own L1, Valkey connection and origin)
 * on one real redis-server, over {@link SlowOrigin}, a stand-in in this JVM whose calls sleep.
 * Origin calls of 3 s last longer than the fill wait's former 2 s, calls of 12 s longer than the
 * 5 s lease TTL; the stand-in declares a 20 s timeout, above both.
 */
class SlowOriginLeaseIT {

  @RegisterExtension
  final L2Extension valkey = new L2Extension(L2Mode.STANDALONE);

  private static final Duration ORIGIN_TIMEOUT = Duration.ofSeconds(20);
  private static final int PODS = 4;

  private final Map<String, AtomicInteger> reads = SlowOrigin.newCount();
  private final List<TieredCache<String>> caches = new ArrayList<>();
  private final List<ExecutorService> pools = new ArrayList<>();

  @AfterEach
  void close() {
    caches.forEach(TieredCache::close);
    pools.forEach(ExecutorService::shutdownNow);
  }

  /** A pod with the default lease settings, whose loader runs up to 16 origin calls at once. */
  private TieredCache<String> pod(String name, SlowOrigin origin, SimpleMeterRegistry meters) {
    ExecutorService loaders = Executors.newFixedThreadPool(16);
    pools.add(loaders);
    TieredCache<String> cache = WarmGate.newBuilder(String.class, origin)
        .cacheName("deals")
        .valkey(valkey.endpoint())
        .podName(name)
        .executor(loaders)
        .meterRegistry(meters)
        // Generous for a shared 2-core machine: an L2 timeout would skip the lease and blur counts.
        .l2Timeout(Duration.ofSeconds(1))
        .build();
    caches.add(cache);
    return cache;
  }

  private static List<String> ids(int n) {
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(String.format("deal-%06d", i));
    }
    return ids;
  }

  @ParameterizedTest(name = "origin calls of {0} s")
  @ValueSource(ints = {3, 12})
  void aColdFleetReadsEachIdAboutOnceWhileTheOriginIsSlow(int seconds) throws Exception {
    List<String> ids = ids(100);
    List<TieredCache<String>> fleet = new ArrayList<>();
    for (int p = 0; p < PODS; p++) {
      fleet.add(pod("pod-" + p, new SlowOrigin(reads, Duration.ofSeconds(seconds), ORIGIN_TIMEOUT),
          new SimpleMeterRegistry()));
    }
    // Each pod asks for every id, in its own order and batches of 10, ten requests at once.
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(PODS * 10);
    pools.add(callers);
    List<CompletableFuture<Map<String, String>>> requests = new ArrayList<>();
    for (int p = 0; p < PODS; p++) {
      List<String> order = new ArrayList<>(ids);
      Collections.shuffle(order, new Random(p));
      TieredCache<String> cache = fleet.get(p);
      for (int from = 0; from < order.size(); from += 10) {
        List<String> batch = order.subList(from, from + 10);
        requests.add(CompletableFuture.supplyAsync(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return cache.getAll(batch);
        }, callers));
      }
    }
    long start = System.nanoTime();
    go.countDown();
    for (CompletableFuture<Map<String, String>> request : requests) {
      assertThat(request.get(2 * ORIGIN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).hasSize(10);
    }
    double perId = SlowOrigin.readsPerId(reads, ids.size());
    System.out.printf("cold fleet of %d pods, origin calls of %d s: %.3f origin reads per "
        + "requested distinct id (%d ids), %.1f s%n", PODS, seconds, perId, ids.size(),
        (System.nanoTime() - start) / 1e9);
    assertThat(perId).as("origin reads per requested distinct id, origin calls of %d s", seconds)
        .isLessThanOrEqualTo(1.02);
  }

  @Test
  void whenTheHoldersOriginCallFailsItsWaitersReadEachIdOnceMoreBetweenThem() throws Exception {
    List<String> ids = ids(10);
    SlowOrigin failing = new SlowOrigin(reads, Duration.ofSeconds(1), ORIGIN_TIMEOUT);
    failing.failing = new IllegalStateException("spanner: deadline exceeded");
    TieredCache<String> holder = pod("holder", failing, new SimpleMeterRegistry());
    // Three waiters, each over a healthy origin of its own.
    List<TieredCache<String>> waiters = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      waiters.add(pod("waiter-" + p,
          new SlowOrigin(reads, Duration.ofMillis(300), ORIGIN_TIMEOUT), new SimpleMeterRegistry()));
    }
    CompletableFuture<Map<String, String>> held = holder.getAllAsync(ids);
    while (failing.calls.get() == 0) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
    List<CompletableFuture<Map<String, String>>> waited = new ArrayList<>();
    waiters.forEach(w -> waited.add(w.getAllAsync(ids)));

    for (CompletableFuture<Map<String, String>> waiter : waited) {
      assertThat(waiter.get(30, TimeUnit.SECONDS)).hasSize(ids.size());
    }
    assertThat(held).failsWithin(Duration.ofSeconds(5));
    long extra = reads.values().stream().mapToLong(AtomicInteger::get).sum() - ids.size();
    System.out.printf("a failed holder's %d ids: %d more origin reads by its 3 waiters%n",
        ids.size(), extra);
    assertThat(reads).as("the holder's failed read and at most one more, per id")
        .hasSize(ids.size()).allSatisfy((id, n) -> assertThat(n.get()).as(id).isLessThanOrEqualTo(2));
  }

  /**
   * The holder is another JVM, killed with SIGKILL while its origin call runs: it neither releases
   * nor renews its lease, which lapses one lease TTL (1 s here) after its last renewal.
   */
  @Test
  void aWaiterProceedsWithinOneLeaseTtlOfItsHoldersProcessBeingKilled() throws Exception {
    Duration leaseTtl = Duration.ofSeconds(1);
    String id = "deal-killed";
    Process holder = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        LeaseHolderMain.class.getName(),
        "redis://" + valkey.env().get(WarmGateConfig.VALKEY_ADDRESSES),
        Long.toString(leaseTtl.toMillis()), id))
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      // Its log lines come first.
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.startsWith("loading "));
      assertThat(line).as("the holder's origin call began").isEqualTo("loading " + id);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      SlowOrigin own = new SlowOrigin(reads, Duration.ofMillis(50), ORIGIN_TIMEOUT);
      TieredCache<String> waiter = WarmGate.newBuilder(String.class, own)
          .cacheName("deals").valkey(valkey.endpoint()).podName("waiter")
          .lockTtl(leaseTtl).meterRegistry(meters).l2Timeout(Duration.ofSeconds(1)).build();
      caches.add(waiter);
      CompletableFuture<String> lookup = waiter.getAsync(id);

      TimeUnit.MILLISECONDS.sleep(3 * leaseTtl.toMillis());
      assertThat(lookup).as("waiting on the live holder, three lease TTLs into its call").isNotDone();
      assertThat(own.calls).hasValue(0);

      holder.destroyForcibly();
      assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long killed = System.nanoTime();
      assertThat(lookup.get(10, TimeUnit.SECONDS)).isEqualTo("D" + id);
      long afterKillMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
      System.out.printf("holder killed: the waiter had its value %d ms later (lease TTL %d ms, "
          + "its own origin call 50 ms)%n", afterKillMillis, leaseTtl.toMillis());
      assertThat(afterKillMillis).as("ms from the kill to the waiter's value")
          .isLessThan(leaseTtl.toMillis() + 1_000);
      assertThat(reads.get(id)).as("the waiter's own read").hasValue(1);
    } finally {
      holder.destroyForcibly();
    }
  }
}
