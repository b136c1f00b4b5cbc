package io.warmgate.bench.fleet;

import io.warmgate.agent.WarmGate;
import io.warmgate.agent.deal.Deal;
import io.warmgate.testing.DealSeeder;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.SpannerEmulator;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The real components a fleet benchmark runs on: one Redis, one Spanner emulator seeded with
 * deals, the wire counter in front of the emulator and the loader's count. {@link #reset} gives
 * each measured run an empty L2 and zeroed counts; the deals stay.
 */
final class FleetFixture implements AutoCloseable {

  static final String CACHE_NAME = "deals";

  private final RedisServer redis = RedisServer.create();
  private final SpannerEmulator emulator = SpannerEmulator.create();
  private final SpannerWireCounter wire;
  private final OriginCount origin = new OriginCount();
  private final int deals;

  FleetFixture(int deals) {
    this.deals = deals;
    try {
      redis.start();
      emulator.start();
      DealSeeder.seed(emulator.databaseClient(), deals);
      wire = new SpannerWireCounter(emulator.emulatorHost());
    } catch (RuntimeException e) {
      redis.close();
      emulator.close();
      throw e;
    }
  }

  int deals() {
    return deals;
  }

  RedisServer redis() {
    return redis;
  }

  SpannerEmulator emulator() {
    return emulator;
  }

  OriginCount origin() {
    return origin;
  }

  SpannerWireCounter wire() {
    return wire;
  }

  /** Empties Redis and zeroes both counts. */
  void reset() {
    redis.flushAll();
    origin.reset();
    wire.reset();
  }

  /** Starts {@code count} agents named {@code <prefix>-<i>}; {@code withL2} false means L1 only. */
  List<FleetAgent> agents(String prefix, int count, boolean withL2, InstantSource clock,
      UnaryOperator<WarmGate<Deal>> settings) {
    List<FleetAgent> agents = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      agents.add(new FleetAgent(prefix + "-" + i, wire.host(), origin, CACHE_NAME,
          withL2 ? redis.uri() : null, clock, settings));
    }
    return agents;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      wire.close();
    } finally {
      emulator.close();
      redis.close();
    }
  }
}
