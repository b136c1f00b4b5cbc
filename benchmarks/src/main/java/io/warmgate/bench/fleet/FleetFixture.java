package io.warmgate.bench.fleet;

import io.warmgate.agent.WarmGate;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.SpannerEmulator;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The real components a fleet benchmark runs on: one Redis (or a Redis cluster of three primaries
 * with a replica each), one Spanner emulator seeded with deals, the wire counter in front of the
 * emulator and the loader's count. {@link #reset} gives each measured run an empty L2 and zeroed
 * counts; the deals stay.
 */
final class FleetFixture implements AutoCloseable {

  static final String CACHE_NAME = "deals";

  private final RedisServer redis;
  private final RedisCluster cluster;
  private final SpannerEmulator emulator = SpannerEmulator.create();
  private final SpannerWireCounter wire;
  private final OriginCount origin = new OriginCount();
  private final int deals;

  /** A fixture on one Redis server. */
  FleetFixture(int deals) {
    this(deals, false);
  }

  /** @param onCluster whether L2 is a Redis cluster rather than one server */
  FleetFixture(int deals, boolean onCluster) {
    this.deals = deals;
    redis = onCluster ? null : RedisServer.create();
    cluster = onCluster ? RedisCluster.create() : null;
    try {
      if (onCluster) {
        cluster.start();
      } else {
        redis.start();
      }
      emulator.start();
      DealSeeder.seed(emulator.databaseClient(), deals);
      wire = new SpannerWireCounter(emulator.emulatorHost());
    } catch (RuntimeException e) {
      closeL2();
      emulator.close();
      throw e;
    }
  }

  /** The agents' L2: the server, or the cluster with every node as a seed. */
  ValkeyEndpoint l2() {
    return cluster != null ? ValkeyEndpoint.cluster(cluster.uris().toArray(String[]::new))
        : ValkeyEndpoint.standalone(redis.uri());
  }

  /** Whether L2 is a cluster. */
  boolean onCluster() {
    return cluster != null;
  }

  int deals() {
    return deals;
  }

  /**
   * The Redis server.
   *
   * @throws IllegalStateException on a cluster fixture
   */
  RedisServer redis() {
    if (redis == null) {
      throw new IllegalStateException("this fleet runs on a Redis cluster, not one server");
    }
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
    if (cluster != null) {
      cluster.flushAll();
    } else {
      redis.flushAll();
    }
    origin.reset();
    wire.reset();
  }

  /** Starts {@code count} agents named {@code <prefix>-<i>}; {@code withL2} false means L1 only. */
  List<FleetAgent> agents(String prefix, int count, boolean withL2, InstantSource clock,
      UnaryOperator<WarmGate<Deal>> settings) {
    List<FleetAgent> agents = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      agents.add(new FleetAgent(prefix + "-" + i, wire.host(), origin, CACHE_NAME,
          withL2 ? l2() : null, clock, settings));
    }
    return agents;
  }

  @Override
  public void close() throws InterruptedException {
    try {
      wire.close();
    } finally {
      emulator.close();
      closeL2();
    }
  }

  private void closeL2() {
    if (cluster != null) {
      cluster.close();
    } else {
      redis.close();
    }
  }
}
