package io.warmgate.agent.faults;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.Meters;
import io.warmgate.agent.Origin;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.deal.Deal;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyEndpoint;
import java.util.function.UnaryOperator;

/** One cache instance as a pod would run it: its own L2 connection, meters and counted origin. */
final class Pod<V> implements AutoCloseable {

  final String name;
  final TieredCache<V> cache;
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final OriginMeter<V> origin;

  private Pod(String name, Class<V> type, Origin<V> origin, ValkeyEndpoint valkey,
      UnaryOperator<WarmGate<V>> settings) {
    this.name = name;
    this.origin = new OriginMeter<>(origin);
    this.cache = settings.apply(WarmGate.newBuilder(type, this.origin)
            .cacheName("deals")
            .valkey(valkey)
            .podName(name)
            .meterRegistry(meters))
        .build();
  }

  static Pod<Deal> start(String name, Origin<Deal> origin, String redisUri,
      UnaryOperator<WarmGate<Deal>> settings) {
    return start(name, Deal.class, origin, redisUri, settings);
  }

  static Pod<Deal> start(String name, Origin<Deal> origin, ValkeyEndpoint valkey,
      UnaryOperator<WarmGate<Deal>> settings) {
    return new Pod<>(name, Deal.class, origin, valkey, settings);
  }

  static <V> Pod<V> start(String name, Class<V> type, Origin<V> origin, String redisUri,
      UnaryOperator<WarmGate<V>> settings) {
    return new Pod<>(name, type, origin, ValkeyEndpoint.standalone(redisUri), settings);
  }

  KeySpace keys() {
    return new KeySpace(cache.name(), cache.schemaHash());
  }

  long count(String meter, String... tags) {
    return Meters.count(meters, meter, tags);
  }

  long l1Hits() {
    return count("warmgate.cache.gets", "tier", "l1", "result", "hit");
  }

  long l2Hits() {
    return count("warmgate.cache.gets", "tier", "l2", "result", "hit");
  }

  long l2Misses() {
    return count("warmgate.cache.gets", "tier", "l2", "result", "miss");
  }

  /** 0 closed, 1 open, 2 half-open. */
  int breakerState() {
    return (int) Meters.gauge(meters, "warmgate.l2.breaker.state");
  }

  /** 0 closed, 1 open, 2 half-open. */
  int originBreakerState() {
    return (int) Meters.gauge(meters, "warmgate.origin.breaker.state");
  }

  /** One line of the figures a fault test reports. */
  String figures() {
    return String.format("%s: l1 hits %d, l2 hits %d, l2 misses %d, l2 timeouts %d, l2 failures %d,"
            + " l2 skipped %d, l2 corrupt %d, l2 writes %d, origin calls %d / keys %d / errors %d,"
            + " origin skipped %d, stale served %d, breaker l2 %d / origin %d",
        name, l1Hits(), l2Hits(), l2Misses(),
        count("warmgate.l2.errors", "kind", "timeout"), count("warmgate.l2.errors", "kind", "failure"),
        count("warmgate.l2.skipped"), count("warmgate.l2.corrupt"), count("warmgate.l2.writes"),
        origin.calls(), origin.keys(), origin.errors(), count("warmgate.origin.skipped"),
        count("warmgate.stale.served"), breakerState(), originBreakerState());
  }

  @Override
  public void close() {
    cache.close();
  }
}
