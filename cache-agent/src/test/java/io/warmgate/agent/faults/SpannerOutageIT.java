package io.warmgate.agent.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.cloud.spanner.SpannerException;
import io.warmgate.agent.CacheLoadException;
import io.warmgate.agent.RawRedis;
import io.warmgate.agent.deal.Deal;
import io.warmgate.agent.deal.SpannerDealOrigin;
import io.warmgate.testing.DealSeeder;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Spanner emulator SIGKILLed under a steady ~1,000 lookups/s of held deals whose TTLs have
 * run out (stale-if-error is all that serves them), then restarted on the same port and reseeded
 * (it restarts empty). A stale value is served only after the origin call failed, so during the
 * outage each lookup takes the origin timeout (1 s here) and the rate falls to what the waiting
 * threads allow; the test bounds that latency and prints the rate.
 */
class SpannerOutageIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static final int DEALS = 300;
  private static final String UNCACHED = DealSeeder.dealId(250);
  private static final String UNKNOWN = "deal-999999";

  private final ShiftedClock clock = new ShiftedClock();
  private List<String> held;
  private Pod a;
  private Pod b;

  @BeforeEach
  void start() {
    redis.flushAll();
    held = DealSeeder.seed(spanner.databaseClient(), DEALS).subList(0, 200);
    SpannerDealOrigin origin = new SpannerDealOrigin(spanner.databaseClient(), Duration.ofSeconds(1));
    a = Pod.start("pod-a", origin, redis.uri(), w -> w.clock(clock).l2Timeout(Duration.ofMillis(200)));
    b = Pod.start("pod-b", origin, redis.uri(), w -> w.clock(clock).l2Timeout(Duration.ofMillis(200)));
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  private LoadDriver<Deal> load(String phase) {
    return LoadDriver.start(List.of(a.cache, b.cache), KeyChooser.uniform(held), 1_000, 3,
        (id, deal) -> deal != null && deal.dealId().equals(id), phase);
  }

  /** Loads the held deals in batches (the emulator answers ~5 queries/s), pod b from L2. */
  private void loadHeld() {
    a.cache.getAll(held.subList(0, 100));
    a.cache.getAll(held.subList(100, 200));
    try (RawRedis raw = new RawRedis(redis.uri())) {
      String[] keys = held.stream().map(a.keys()::valueKey).toArray(String[]::new);
      await().atMost(Duration.ofSeconds(10)).until(() -> raw.sync().exists(keys) == keys.length);
    }
    b.cache.getAll(held);
  }

  @Test
  void outageServesHeldDealsStaleFailsOthersByIdPoisonsNothingAndRecovers() {
    loadHeld();
    long bOriginAfterWarm = b.origin.keys();
    LoadDriver<Deal> load = load("fresh");
    LoadDriver.hold(2_000);
    clock.advance(Duration.ofSeconds(250)); // both TTLs over; 50 s left of staleIfError
    Phase outage = load.phase("outage");
    spanner.stop(); // SIGKILL

    long failStart = System.nanoTime();
    assertThatThrownBy(() -> a.cache.get(UNCACHED))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'" + UNCACHED + "'")
        .hasMessageContaining("no stale value is held")
        .hasCauseInstanceOf(SpannerException.class);
    double uncachedFailedAfter = (System.nanoTime() - failStart) / 1e9;
    assertThatThrownBy(() -> a.cache.get(UNKNOWN))
        .as("an origin error is not 'not found'")
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'" + UNKNOWN + "'");
    LoadDriver.hold(4_000);
    List<Phase> phases = load.stop();

    try (RawRedis raw = new RawRedis(redis.uri())) {
      assertThat(raw.sync().exists(a.keys().valueKey(UNCACHED), a.keys().valueKey(UNKNOWN)))
          .as("nothing written to L2 for ids the origin could not answer").isZero();
    }
    clock.advance(Duration.ofSeconds(60)); // held values now older than staleIfError
    assertThatThrownBy(() -> a.cache.get(held.get(0)))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'" + held.get(0) + "'")
        .hasMessageContaining("older than staleIfError=PT5M");

    long restartStart = System.nanoTime();
    spanner.start(); // same port, empty database with the schema
    DealSeeder.seed(spanner.databaseClient(), DEALS);
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
        .until(() -> a.cache.get(UNCACHED) != null);
    double recoveredAfter = (System.nanoTime() - restartStart) / 1e9;
    assertThat(b.cache.get(UNCACHED)).as("not cached as not found during the outage").isNotNull();
    assertThat(a.cache.get(UNKNOWN)).as("truly unknown, now that the origin answers").isNull();
    loadHeld();
    LoadDriver<Deal> after = load("recovered");
    LoadDriver.hold(2_000);
    Phase recovered = after.stop().get(0);

    System.out.println(a.figures());
    System.out.println(b.figures());
    System.out.printf("uncached id failed after %.2f s; Spanner answered again %.2f s after restart;"
        + " pod-b origin keys before the outage %d%n", uncachedFailedAfter, recoveredAfter, bOriginAfterWarm);

    assertThat(bOriginAfterWarm).as("pod b was warmed from L2").isZero();
    assertThat(phases).allSatisfy(p -> assertThat(p.failures()).as(p.toString()).isZero());
    assertThat(recovered.failures()).as(recovered.toString()).isZero();
    // Stale values are served once the origin call has failed, so each costs the origin timeout.
    assertThat(outage.lookups()).as("lookups in the outage").isGreaterThan(20);
    assertThat(outage.percentileMillis(99)).as("p99 in the outage, ms: the 1 s origin timeout")
        .isLessThan(1_500);
    assertThat(a.count("warmgate.stale.served")).as("pod a served stale").isPositive();
    assertThat(b.count("warmgate.stale.served")).as("pod b served stale").isPositive();
  }
}
