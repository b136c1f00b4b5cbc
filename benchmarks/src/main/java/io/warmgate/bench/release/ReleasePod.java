package io.warmgate.bench.release;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Origin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealOrigin;
import io.warmgate.testing.SpannerEmulator;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One pod of the fleet: its own Spanner client (or the shared modelled origin), its own cache (L1, Valkey connections, meters)
 * with the fleet services a real pod runs (registry heartbeat under its pod-template hash, stats,
 * hot-key sampling, preload worker), all on the compressed clock of the benchmark. Only Redis,
 * the emulator and the {@link OriginLog} are shared.
 */
final class ReleasePod implements AutoCloseable {

  /** The two versions of the app: the cached type and the ReplicaSet's pod-template hash. */
  enum Version {
    OLD, NEW;

    boolean isNew() {
      return this == NEW;
    }
  }

  /** The emulator answers one query at a time in about 300 ms: calls queue behind each other. */
  private static final Duration EMULATOR_TIMEOUT = Duration.ofSeconds(60);

  private final String name;
  private final Version version;
  private final Spanner spanner;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final TieredCache<?> cache;
  private final AtomicInteger pending = new AtomicInteger();

  ReleasePod(String name, Version version, ReleaseEnv env) {
    this.name = name;
    this.version = version;
    Origin<Deal> deals;
    if (env.modelled() != null) {
      spanner = null;
      deals = env.modelled();
    } else {
      spanner = SpannerOptions.newBuilder()
          .setProjectId(SpannerEmulator.PROJECT_ID)
          .setEmulatorHost(env.emulatorHost())
          .setCredentials(NoCredentials.getInstance())
          .build()
          .getService();
      deals = DealOrigin.spanner(spanner.getDatabaseClient(DatabaseId.of(SpannerEmulator.PROJECT_ID,
          SpannerEmulator.INSTANCE_ID, SpannerEmulator.DEFAULT_DATABASE_ID)), EMULATOR_TIMEOUT);
    }
    cache = version.isNew()
        ? configure(WarmGate.newBuilder(NewDeal.class, env.origins().wrap(newVersion(deals), true)), env)
        : configure(WarmGate.newBuilder(Deal.class, env.origins().wrap(deals, false)), env);
  }

  private static Origin<NewDeal> newVersion(Origin<Deal> deals) {
    return new Origin<>() {
      @Override
      public Map<String, NewDeal> loadAll(Collection<String> ids) throws Exception {
        Map<String, NewDeal> out = new LinkedHashMap<>();
        deals.loadAll(ids).forEach((id, deal) -> out.put(id, new NewDeal(deal, "even")));
        return out;
      }

      @Override
      public Duration timeout() {
        return deals.timeout();
      }
    };
  }

  private <V> TieredCache<V> configure(WarmGate<V> builder, ReleaseEnv env) {
    ReleaseParams p = env.params();
    Duration halfLife = p.scaled(Practice.HOT_HALF_LIFE);
    return builder.cacheName(ReleaseEnv.CACHE_NAME)
        .valkeyUri(env.redisUri())
        .podName(name)
        .podNamespace(ReleaseEnv.NAMESPACE)
        .podTemplateHash(version.isNew() ? ReleaseEnv.NEW_POD_HASH : ReleaseEnv.OLD_POD_HASH)
        .l1Ttl(p.scaled(Practice.L1_TTL))
        .l2Ttl(p.scaled(Practice.L2_TTL))
        .refreshAhead(p.scaled(Practice.REFRESH_AHEAD))
        .lockTtl(Practice.lockTtl(p))
        .maxStaleness(p.scaled(Practice.MAX_STALENESS))
        .l2Timeout(Duration.ofMillis(p.l2TimeoutMillis()))
        .meterRegistry(meters)
        .fleetServices(fleet -> fleet
            .hotKeys(new HotKeys(p.hotSamplePeriod(), HotKeys.DEFAULT_BUFFER_SIZE,
                HotKeys.DEFAULT_CAPACITY, halfLife))
            .flushInterval(p.scaled(Practice.FLUSH_INTERVAL))
            .pollInterval(p.scaled(Practice.POLL_INTERVAL)))
        .build();
  }

  String name() {
    return name;
  }

  Version version() {
    return version;
  }

  String schemaHash() {
    return cache.schemaHash();
  }

  /** This pod's key space: its cache name and schema hash. */
  KeySpace keySpace() {
    return new KeySpace(ReleaseEnv.CACHE_NAME, cache.schemaHash());
  }

  /** A request was routed here; {@link #lookup} answers it. */
  void accept() {
    pending.incrementAndGet();
  }

  /** One request's lookups, as the app makes them: one {@code getAll}. */
  void lookup(List<String> ids) {
    try {
      cache.getAll(ids);
    } finally {
      pending.decrementAndGet();
    }
  }

  /** Requests routed here and not answered yet. */
  int pending() {
    return pending.get();
  }

  /** Lookups L1 answered, and all lookups, since the pod started. */
  long l1Hits() {
    return count("hit");
  }

  long lookups() {
    return count("hit") + count("miss");
  }

  /** Ids this pod reloaded ahead of their L2 expiry, having won the refresh lock. */
  long refreshedIds() {
    return (long) meters.find("warmgate.refresh").tags("result", "won").counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  /** This pod's L2 commands that ran past their bound (a lookup's is the L2 budget) so far. */
  long l2PastBound() {
    return (long) meters.find("warmgate.l2.errors").tags("kind", "timeout").counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  private long count(String result) {
    return (long) meters.find("warmgate.cache.gets").tags("tier", "l1", "result", result).counters()
        .stream().mapToDouble(c -> c.count()).sum();
  }

  @Override
  public void close() {
    try {
      cache.close();
    } finally {
      if (spanner != null) {
        spanner.close();
      }
    }
  }

  @Override
  public String toString() {
    return name + " (" + version + ")";
  }
}
