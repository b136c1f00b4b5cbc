package io.warmgate.bench.freshness;

import io.warmgate.agent.TieredCache;
import io.warmgate.bench.common.ZipfIds;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealSeeder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fleet under load while changes are committed: every pod serves its share of the Zipf
 * lookups, and after each commit every pod looks the changed deal up every
 * {@value #PROBE_MILLIS} ms (as a hot deal is looked up) until it serves the change. The time
 * from the commit timestamp to the last pod serving the change is the change's staleness.
 */
final class FreshnessRun {

  static final int PROBE_MILLIS = 5;
  /** A change not served by every pod within this counts as missed. */
  static final Duration GIVE_UP = Duration.ofSeconds(30);
  /**
   * Origin reads of a changed deal are counted this long after its commit; it is kept from
   * changing again meanwhile, so the windows of one deal do not overlap.
   */
  static final Duration READ_WINDOW = Duration.ofSeconds(10);

  /** What one change cost and took. */
  record ChangeResult(int seq, String kind, String id, int changedIds, long stalenessMillis,
      int readsOfId) {}

  /** What the fleet did over all changes. */
  record Result(String fleet, List<ChangeResult> changes, int missed, long originReads,
      int changedIds, long lookups, long failedLookups, double seconds) {

    long[] sortedStaleness() {
      long[] s = changes.stream().mapToLong(ChangeResult::stalenessMillis).toArray();
      Arrays.sort(s);
      return s;
    }

    double readsPerChange() {
      return changes.stream().mapToInt(ChangeResult::readsOfId).average().orElse(0);
    }

    int maxReadsPerChange() {
      return changes.stream().mapToInt(ChangeResult::readsOfId).max().orElse(0);
    }
  }

  private FreshnessRun() {}

  static Result run(String fleetName, FreshnessFleet fleet, Changes changes,
      FreshnessParams params) throws Exception {
    List<TieredCache<Deal>> pods = fleet.pods();
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicLong lookups = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    ExecutorService load = Executors.newFixedThreadPool(pods.size());
    ExecutorService probes = Executors.newCachedThreadPool();
    long readsBefore = fleet.reads().size();
    long start = System.nanoTime();
    try {
      for (int i = 0; i < pods.size(); i++) {
        TieredCache<Deal> pod = pods.get(i);
        Random random = new Random(params.seed() * 31 + i);
        ZipfIds zipf = new ZipfIds(params.deals(), params.skew(), params.seed());
        double perMilli = params.lookupsPerSecond() / (double) pods.size() / 1_000;
        load.execute(() -> serve(pod, zipf, random, perMilli, loading, lookups, failed));
      }
      Set<String> busy = ConcurrentHashMap.newKeySet();
      List<Future<ChangeResult>> results = new ArrayList<>();
      long periodNanos = (long) (1e9 / params.changesPerSecond());
      for (int seq = 0; seq < params.changes(); seq++) {
        sleepUntil(start + seq * periodNanos);
        Changes.Change change = changes.commit(seq, busy);
        long commitNanos = System.nanoTime()
            - Duration.between(change.committed(), Instant.now()).toNanos();
        Set<String> keys = keys(change);
        busy.addAll(keys);
        results.add(probes.submit(() -> {
          try {
            return watch(change, commitNanos, pods, fleet, probes);
          } finally {
            busy.removeAll(keys);
          }
        }));
      }
      List<ChangeResult> done = new ArrayList<>();
      int missed = 0;
      for (Future<ChangeResult> f : results) {
        ChangeResult r = f.get(GIVE_UP.plus(READ_WINDOW).toSeconds() + 30, TimeUnit.SECONDS);
        if (r == null) {
          missed++;
        } else {
          done.add(r);
        }
      }
      loading.set(false);
      double seconds = (System.nanoTime() - start) / 1e9;
      int changedIdCount = 0;
      for (ChangeResult r : done) {
        changedIdCount += r.changedIds();
      }
      return new Result(fleetName, done, missed, fleet.reads().size() - readsBefore,
          changedIdCount, lookups.get(), failed.get(), seconds);
    } finally {
      loading.set(false);
      load.shutdown();
      probes.shutdownNow();
      load.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static Set<String> keys(Changes.Change change) {
    Set<String> keys = new LinkedHashSet<>(change.changedIds());
    keys.add(change.probedId());
    if (change.kind().startsWith("advertiser")) {
      keys.add(DealSeeder.advertiserId(
          Integer.parseInt(change.probedId().substring("deal-".length()))));
    }
    return keys;
  }

  /** One pod's share of the lookups, paced per millisecond, asynchronous so a miss blocks none. */
  private static void serve(TieredCache<Deal> pod, ZipfIds zipf, Random random, double perMilli,
      AtomicBoolean loading, AtomicLong lookups, AtomicLong failed) {
    long begin = System.nanoTime();
    long issued = 0;
    while (loading.get()) {
      long due = (long) ((System.nanoTime() - begin) / 1e6 * perMilli);
      for (; issued < due; issued++) {
        pod.getAsync(zipf.next(random)).whenComplete((v, e) -> {
          lookups.incrementAndGet();
          if (e != null) {
            failed.incrementAndGet();
          }
        });
      }
      sleepMillis(1);
    }
  }

  /**
   * Looks the changed deal up in every pod, each on a thread of its own, until each serves the
   * change; returns the staleness and the origin reads of the deal within {@link #READ_WINDOW} of
   * the commit, or null if a pod did not serve it within {@link #GIVE_UP}.
   */
  private static ChangeResult watch(Changes.Change change, long commitNanos,
      List<TieredCache<Deal>> pods, FreshnessFleet fleet, ExecutorService probes)
      throws Exception {
    List<Future<Long>> seen = new ArrayList<>();
    for (TieredCache<Deal> pod : pods) {
      seen.add(probes.submit(() -> firstServed(pod, change, commitNanos)));
    }
    long lastSeen = 0;
    for (Future<Long> f : seen) {
      Long at = f.get();
      if (at == null) {
        return null;
      }
      lastSeen = Math.max(lastSeen, at);
    }
    // Every pod serves it; go on looking it up as traffic would, and count what that costs.
    long windowEnd = commitNanos + READ_WINDOW.toNanos();
    while (System.nanoTime() < windowEnd) {
      for (TieredCache<Deal> pod : pods) {
        try {
          pod.get(change.probedId());
        } catch (RuntimeException e) {
          // counted by the load's failures; the probe only keeps the deal hot
        }
      }
      sleepMillis(50);
    }
    int reads = 0;
    for (FreshnessFleet.Read read : fleet.reads()) {
      if (read.id().equals(change.probedId()) && read.nanos() >= commitNanos
          && read.nanos() < windowEnd) {
        reads++;
      }
    }
    return new ChangeResult(change.seq(), change.kind(), change.probedId(),
        change.changedIds().size(), Math.max(0, (lastSeen - commitNanos) / 1_000_000), reads);
  }

  /** When {@code pod} first served {@code change}, or null if not within {@link #GIVE_UP}. */
  private static Long firstServed(TieredCache<Deal> pod, Changes.Change change, long commitNanos) {
    while (System.nanoTime() - commitNanos < GIVE_UP.toNanos()) {
      try {
        if (change.served().test(pod.get(change.probedId()))) {
          return System.nanoTime();
        }
      } catch (RuntimeException e) {
        // a failed lookup: look again
      }
      sleepMillis(PROBE_MILLIS);
    }
    return null;
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left = nanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
