package io.warmgate.bench.freshness;

import com.google.cloud.spanner.DatabaseClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Origin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealChanges;
import io.warmgate.example.deal.DealOrigin;
import io.warmgate.spanner.changes.ChangeStreamWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * K pods of the Deal service in this JVM: each a cache with the production TTLs (L1 60 s, L2 4 min)
 * and fleet services on, reading Deals from the emulator through an origin that logs every id it
 * reads, and each running a change stream watcher with the {@link DealChanges} mapping (the one
 * holding the lock reads the stream).
 */
final class FreshnessFleet implements AutoCloseable {

  /**
   * The L2 call budget. The default 20 ms is made for a dedicated Valkey; on 2 shared cores with
   * the emulator and K pods it would time out calls and send lookups to the origin, which would
   * then count as reads the invalidation caused.
   */
  static final Duration L2_TIMEOUT = Duration.ofMillis(250);

  /** One origin read of one id, at {@code nanos} ({@link System#nanoTime}). */
  record Read(String id, long nanos) {}

  private final List<TieredCache<Deal>> pods = new ArrayList<>();
  private final List<ChangeStreamWatcher> watchers = new ArrayList<>();
  private final ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();

  /**
   * Starts {@code agents} pods on {@code db} and the Valkey at {@code redisUri}; with
   * {@code fillLease} false, pods do not wait for each other's origin reads (fillWait 0).
   */
  static FreshnessFleet start(DatabaseClient db, String redisUri, int agents, boolean fillLease) {
    FreshnessFleet fleet = new FreshnessFleet();
    try {
      Origin<Deal> deals = DealOrigin.spanner(db);
      Origin<Deal> logged = ids -> {
        long now = System.nanoTime();
        for (String id : ids) {
          fleet.reads.add(new Read(id, now));
        }
        return deals.loadAll(ids);
      };
      for (int i = 1; i <= agents; i++) {
        String name = "deals-" + i;
        WarmGate<Deal> builder = WarmGate.newBuilder(Deal.class, logged)
            .cacheName("deals")
            .valkeyUri(redisUri)
            .podName(name)
            .meterRegistry(new SimpleMeterRegistry())
            .l1Ttl(Duration.ofSeconds(60))
            .l2Ttl(Duration.ofMinutes(4))
            .l2Timeout(L2_TIMEOUT)
            .fleetServices(true);
        if (!fillLease) {
          builder.fillWait(Duration.ZERO);
        }
        TieredCache<Deal> pod = builder.build();
        fleet.pods.add(pod);
        fleet.watchers.add(DealChanges.mapTables(
                ChangeStreamWatcher.builder(db, DealChanges.STREAM), db)
            .cache(pod)
            .valkey(ValkeyEndpoint.standalone(redisUri))
            .podName(name)
            .start());
      }
      return fleet;
    } catch (RuntimeException e) {
      fleet.close();
      throw e;
    }
  }

  List<TieredCache<Deal>> pods() {
    return pods;
  }

  /** Whether one of the pods' watchers holds the reader lock. */
  boolean reading() {
    return watchers.stream().anyMatch(ChangeStreamWatcher::isLeading);
  }

  /**
   * Puts every id in L2 (the first pod reads them from the origin in batches) and in every pod's
   * L1 (the others read them from L2).
   */
  void warm(List<String> ids) {
    for (TieredCache<Deal> pod : pods) {
      for (int i = 0; i < ids.size(); i += 50) {
        Map<String, Deal> got = pod.getAll(ids.subList(i, Math.min(ids.size(), i + 50)));
        if (got.size() != Math.min(50, ids.size() - i)) {
          throw new IllegalStateException(pod.name() + " found " + got.size() + " of a batch of "
              + "seeded deals starting at " + ids.get(i));
        }
      }
    }
  }

  /** The origin reads logged so far. */
  Collection<Read> reads() {
    return reads;
  }

  @Override
  public void close() {
    for (ChangeStreamWatcher watcher : watchers) {
      watcher.close();
    }
    for (TieredCache<Deal> pod : pods) {
      pod.close();
    }
  }
}
