package io.warmgate.bench.fleet;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealOrigin;
import io.warmgate.spanner.SpannerOrigin;
import io.warmgate.testing.SpannerEmulator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.UnaryOperator;

/**
 * One simulated pod: its own Spanner client (through the wire counter), its own cache with its own
 * L1 and Valkey connection, and its own metrics. Only the Redis server, the emulator and the
 * loader's counter are shared.
 */
final class FleetAgent implements AutoCloseable {

  /**
   * The L2 budget on a shared 2-core machine: with eight agents and the emulator on two cores, a
   * 20 ms budget times out on scheduling alone and sends L2 hits to the origin, which would measure
   * the machine, not the cache.
   */
  static final Duration L2_TIMEOUT = Duration.ofMillis(250);
  /** Queries queue behind each other on the emulator under a fleet's load; a read is slow, not failed. */
  static final Duration ORIGIN_TIMEOUT = Duration.ofSeconds(60);

  private final Spanner spanner;
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final TieredCache<Deal> cache;

  /**
   * Creates the agent {@code name}; {@code valkey} null means L1 only. {@code settings} adjusts
   * the builder (TTLs, refresh-ahead) after the fleet defaults are applied.
   */
  FleetAgent(String name, String wireHost, OriginCount counter, String cacheName,
      ValkeyEndpoint valkey, InstantSource clock, UnaryOperator<WarmGate<Deal>> settings) {
    spanner = SpannerOptions.newBuilder()
        .setProjectId(SpannerEmulator.PROJECT_ID)
        .setEmulatorHost(wireHost)
        .setCredentials(NoCredentials.getInstance())
        .build()
        .getService();
    SpannerOrigin<Deal> origin = DealOrigin.spanner(spanner.getDatabaseClient(DatabaseId.of(
        SpannerEmulator.PROJECT_ID, SpannerEmulator.INSTANCE_ID, SpannerEmulator.DEFAULT_DATABASE_ID)),
        ORIGIN_TIMEOUT);
    WarmGate<Deal> builder = WarmGate.newBuilder(Deal.class, counter.wrap(origin))
        .cacheName(cacheName)
        .podName(name)
        .clock(clock)
        .l2Timeout(L2_TIMEOUT)
        .meterRegistry(meters)
        .fleetServices(false);
    if (valkey != null) {
      builder.valkey(valkey);
    }
    cache = settings.apply(builder).build();
  }

  TieredCache<Deal> cache() {
    return cache;
  }

  /** The sum of counter {@code name} over all its tags, e.g. {@code warmgate.l2.errors}. */
  double counter(String name, String... tags) {
    return meters.find(name).tags(tags).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  /** L2 timeouts and failures over a fleet: each sent a lookup to the origin that L2 could have served. */
  static long l2Errors(java.util.List<FleetAgent> agents) {
    return (long) agents.stream().mapToDouble(a -> a.counter("warmgate.l2.errors")).sum();
  }

  /** Mean wall time of an origin load over a fleet, in ms: the window in which two pods can miss one key together. */
  static double meanOriginMillis(java.util.List<FleetAgent> agents) {
    double totalMillis = 0;
    long count = 0;
    for (FleetAgent agent : agents) {
      for (io.micrometer.core.instrument.Timer timer
          : agent.meters.find("warmgate.load.latency").tag("tier", "origin").timers()) {
        totalMillis += timer.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS);
        count += timer.count();
      }
    }
    return count == 0 ? 0 : totalMillis / count;
  }

  @Override
  public void close() {
    cache.close();
    spanner.close();
  }
}
