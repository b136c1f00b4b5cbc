package io.warmgate.agent;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The meters of one cache, all tagged {@code cache=<name>} and registered once, so that recording
 * allocates nothing. Names are listed in the module README. Two caches of the same name in one
 * registry share their counters, and the gauges report the first of them.
 */
final class CacheMetrics {

  final Counter l1Hits;
  final Counter l1Misses;
  final Counter l2Hits;
  final Counter l2Misses;
  final Counter l2Corrupt;
  final Counter l2Timeouts;
  final Counter l2Failures;
  final Counter l2Skipped;
  final Counter l2Writes;
  final Counter l2Oversize;
  final Counter originLoads;
  final Counter originKeys;
  final Counter originErrors;
  final Counter originNotFound;
  final Counter originSkipped;
  final Counter originLate;
  final Counter staleServed;
  final Counter heldServed;
  final Counter refreshWon;
  final Counter refreshLost;
  final Counter refreshFailed;
  final Counter fillWon;
  final Counter fillWaited;
  final Counter fillLapsed;
  final Counter fillTimeout;
  final Counter fillSkipped;
  /** Fill-lease polls sent again after one failed while the L2 breaker stayed closed, per id. */
  final Counter fillPollRetried;
  final Timer l2Latency;
  final Timer originLatency;

  private final MeterRegistry registry;
  private final Tags tags;

  CacheMetrics(MeterRegistry registry, String cacheName) {
    this.registry = registry;
    this.tags = Tags.of("cache", cacheName);
    l1Hits = counter("warmgate.cache.gets", "tier", "l1", "result", "hit");
    l1Misses = counter("warmgate.cache.gets", "tier", "l1", "result", "miss");
    l2Hits = counter("warmgate.cache.gets", "tier", "l2", "result", "hit");
    l2Misses = counter("warmgate.cache.gets", "tier", "l2", "result", "miss");
    l2Corrupt = counter("warmgate.l2.corrupt");
    l2Timeouts = counter("warmgate.l2.errors", "kind", "timeout");
    l2Failures = counter("warmgate.l2.errors", "kind", "failure");
    l2Skipped = counter("warmgate.l2.skipped");
    l2Writes = counter("warmgate.l2.writes");
    l2Oversize = counter("warmgate.l2.oversize");
    originLoads = counter("warmgate.origin.loads");
    originKeys = counter("warmgate.origin.keys");
    originErrors = counter("warmgate.origin.errors");
    originNotFound = counter("warmgate.origin.notfound");
    originSkipped = counter("warmgate.origin.skipped");
    originLate = counter("warmgate.origin.late");
    staleServed = counter("warmgate.stale.served");
    heldServed = counter("warmgate.held.served");
    refreshWon = counter("warmgate.refresh", "result", "won");
    refreshLost = counter("warmgate.refresh", "result", "lost");
    refreshFailed = counter("warmgate.refresh", "result", "failed");
    fillWon = counter("warmgate.fill.lease", "outcome", "won");
    fillWaited = counter("warmgate.fill.lease", "outcome", "waited");
    fillLapsed = counter("warmgate.fill.lease", "outcome", "lapsed");
    fillTimeout = counter("warmgate.fill.lease", "outcome", "timeout");
    fillSkipped = counter("warmgate.fill.lease", "outcome", "skipped");
    fillPollRetried = counter("warmgate.fill.poll.retries");
    l2Latency = latency("l2");
    originLatency = latency("origin");
  }

  /**
   * A timer of {@code tier}'s calls with fixed histogram buckets ({@link #LATENCY_BUCKETS}), so
   * that a percentile can be computed across pods with a bounded number of series.
   */
  private Timer latency(String tier) {
    return Timer.builder("warmgate.load.latency").tags(tags).tag("tier", tier)
        .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
  }

  /** Upper bounds of the latency buckets: 1 ms to 5 s, twelve in all. */
  static final Duration[] LATENCY_BUCKETS = {
      Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
      Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5)};

  /** Registers {@code warmgate.l1.size}, the approximate number of L1 entries. */
  void l1Size(Supplier<Long> size) {
    // Strong reference: Micrometer holds gauge targets weakly, and nothing else holds this lambda.
    Gauge.builder("warmgate.l1.size", size, s -> s.get()).strongReference(true).tags(tags)
        .register(registry);
  }

  /** Registers {@code warmgate.l2.breaker.state}: 0 closed, 1 open, 2 half-open, 3 other. */
  void breakerState(Supplier<CircuitBreaker.State> state) {
    breakerGauge("warmgate.l2.breaker.state", state);
  }

  /** Registers {@code warmgate.origin.breaker.state}, coded like the L2 breaker's. */
  void originBreakerState(Supplier<CircuitBreaker.State> state) {
    breakerGauge("warmgate.origin.breaker.state", state);
  }

  private void breakerGauge(String name, Supplier<CircuitBreaker.State> state) {
    Gauge.builder(name, state, s -> switch (s.get()) {
          case CLOSED -> 0;
          case OPEN -> 1;
          case HALF_OPEN -> 2;
          default -> 3;
        })
        .strongReference(true)
        .tags(tags)
        .register(registry);
  }

  private Counter counter(String name, String... extraTags) {
    return Counter.builder(name).tags(tags).tags(extraTags).register(registry);
  }
}
