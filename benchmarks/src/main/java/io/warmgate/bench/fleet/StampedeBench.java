package io.warmgate.bench.fleet;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.example.deal.DealSeeder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * K agents hold the same hot keys through several L2 TTL cycles. A shared hand-moved clock makes a
 * cycle take seconds: every step moves it past the L1 TTL, then every agent reads all the keys at
 * once, as a busy fleet does. Without the refresh lock (refresh-ahead off) an entry that expires is
 * reloaded by every pod that reads it; with it, one pod reloads it ahead of expiry. Renewals are
 * observed in L2 itself (a new fetch time in the envelope), so each mode is normalised by the
 * cycles it actually went through.
 */
final class StampedeBench {

  enum Mode {
    NO_LOCK("refresh-ahead off, no fill lease: expiry, every pod reloads"),
    REFRESH_LOCK("warmgate: refresh-ahead under the Valkey lock");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /** One mode's counts after the initial fill: origin ids read, and L2 renewals seen. */
  record Result(Mode mode, int keys, int agents, long steps, long originIds, long wireIds,
      long renewals, long l2Errors, long failures) {

    double reloadsPerKeyPerCycle() {
      return renewals == 0 ? Double.NaN : (double) originIds / renewals;
    }
  }

  /** A step moves the clock just past the 60 s L1 TTL, so every step reads L2. */
  private static final Duration STEP = Duration.ofSeconds(61);
  private static final Duration L2_TTL = Duration.ofMinutes(4);
  private static final int BATCH = 50;

  private StampedeBench() {}

  static List<Result> run(FleetFixture fixture, FleetParams p) throws InterruptedException {
    List<String> ids = new ArrayList<>(p.stampedeKeys());
    for (int n = 1; n <= p.stampedeKeys(); n++) {
      ids.add(DealSeeder.dealId(n));
    }
    List<List<String>> batches = new ArrayList<>();
    for (int i = 0; i < ids.size(); i += BATCH) {
      batches.add(ids.subList(i, Math.min(ids.size(), i + BATCH)));
    }
    long steps = (p.stampedeCycles() * L2_TTL.toMillis() + STEP.toMillis() - 1) / STEP.toMillis();
    List<Result> results = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      results.add(runFleet(fixture, p, mode, ids, batches, steps));
    }
    return results;
  }

  private static Result runFleet(FleetFixture fixture, FleetParams p, Mode mode, List<String> ids,
      List<List<String>> batches, long steps) throws InterruptedException {
    fixture.reset();
    ManualClock clock = new ManualClock();
    List<FleetAgent> agents = fixture.agents("stampede-" + mode.name().toLowerCase(), p.agents(),
        true, clock, b -> mode == Mode.NO_LOCK ? b.refreshAhead(Duration.ZERO).fillWait(Duration.ZERO) : b);
    RedisClient client = RedisClient.create(fixture.redis().uri());
    try (StatefulRedisConnection<byte[], byte[]> redis = client.connect(ByteArrayCodec.INSTANCE)) {
      TieredCache<?> first = agents.get(0).cache();
      KeySpace keys = new KeySpace(first.name(), first.schemaHash());
      batches.forEach(first::getAll);
      Map<String, Long> fetched = awaitFilled(redis, keys, ids);
      fixture.origin().reset();
      fixture.wire().reset();
      long renewals = 0;
      long failures = 0;
      for (long step = 0; step < steps; step++) {
        clock.advance(STEP);
        failures += Replay.run(agents, i -> batches).failures();
        awaitQuiet(fixture.origin());
        Map<String, Long> now = fetchTimes(redis, keys, ids);
        for (String id : ids) {
          if (!now.get(id).equals(fetched.get(id))) {
            renewals++;
          }
        }
        fetched = now;
      }
      return new Result(mode, ids.size(), p.agents(), steps, fixture.origin().ids(),
          fixture.wire().ids(), renewals, FleetAgent.l2Errors(agents), failures);
    } finally {
      client.shutdown();
      agents.forEach(FleetAgent::close);
    }
  }

  /** Lookups write L2 in the background: wait until every key is there. */
  private static Map<String, Long> awaitFilled(StatefulRedisConnection<byte[], byte[]> redis,
      KeySpace keys, List<String> ids) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      Map<String, Long> times = fetchTimes(redis, keys, ids);
      if (!times.containsValue(-1L)) {
        return times;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("L2 did not receive the initial fill of " + ids.size()
            + " keys within 30 s");
      }
      Thread.sleep(20);
    }
  }

  /** The fetch time in each key's L2 envelope, -1 where there is none. */
  private static Map<String, Long> fetchTimes(StatefulRedisConnection<byte[], byte[]> redis,
      KeySpace keys, List<String> ids) {
    byte[][] names = ids.stream().map(id -> keys.valueKey(id).getBytes(StandardCharsets.UTF_8))
        .toArray(byte[][]::new);
    List<KeyValue<byte[], byte[]>> values = redis.sync().mget(names);
    Map<String, Long> times = new HashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      KeyValue<byte[], byte[]> value = values.get(i);
      times.put(ids.get(i), value.hasValue()
          ? Envelope.decode(value.getValue(), keys.schemaHash()).fetchedAtMillis() : -1L);
    }
    return times;
  }

  /**
   * Background refreshes run after the lookups return: wait until no origin call is in flight and
   * none started for a while, so the next step sees what this one wrote. (With calls still in
   * flight, the next step would find the entries expired and count a stampede the clock caused.)
   */
  private static void awaitQuiet(OriginCount origin) throws InterruptedException {
    long last = -1;
    long quietSince = System.nanoTime();
    while (System.nanoTime() - quietSince < 500_000_000L) {
      long now = origin.ids();
      if (now != last || origin.inFlight() > 0) {
        last = now;
        quietSince = System.nanoTime();
      }
      Thread.sleep(20);
    }
  }

}
