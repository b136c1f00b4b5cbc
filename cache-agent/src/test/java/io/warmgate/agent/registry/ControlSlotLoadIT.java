package io.warmgate.agent.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.invalidate.Invalidator;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The load of a cache's control slot at 500 agents: 500 <b>simulated</b> pods (one JVM, one
 * connection, a manual clock stepped by one 5 s interval per round) each run the real heartbeat
 * ({@link AgentRegistry}), live key-space read ({@link Invalidator#observeRegistry()}) and hot-key
 * flush ({@link HotKeys}, every lookup sampled and a full ring of Zipf-like ids, the most one
 * flush carries) against a real redis-server, which holds every control key, as the slot's
 * primary does on a cluster. It prints the commands and bytes per second the slot would serve at
 * those intervals, from {@code INFO commandstats} and {@code INFO stats}.
 */
class ControlSlotLoadIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static final int PODS = 500;
  static final Duration INTERVAL = Duration.ofSeconds(5);

  @Test
  void fiveHundredSimulatedPodsKeepTheControlSlotUnderFortyThousandCommandsASecond() throws Exception {
    redis.flushAll();
    ClientResources resources = DefaultClientResources.create();
    ValkeyConnection<String> c = ValkeyConnection.open(ValkeyEndpoint.standalone(redis.uri()),
        StringCodec.UTF8, resources, Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS);
    try {
      ManualClock clock = new ManualClock();
      SplittableRandom random = new SplittableRandom(42);
      List<AgentRegistry> registries = new ArrayList<>();
      List<Invalidator> invalidators = new ArrayList<>();
      List<HotKeys> hot = new ArrayList<>();
      List<KeySpace> spaces = new ArrayList<>();
      for (int i = 0; i < PODS; i++) {
        // 450 stable pods and 50 canary pods, as in a canary release.
        KeySpace keys = new KeySpace("deals", i < 450 ? "aaaaaaaaaaaa" : "bbbbbbbbbbbb");
        long now = clock.millis();
        registries.add(new AgentRegistry(c, keys, new AgentInfo("deals-" + i, "shop", "7d9f",
            keys.schemaHash(), "1.0.0", now, now), clock, Duration.ofMinutes(4)));
        invalidators.add(new Invalidator(c, keys, clock, Duration.ofSeconds(30)));
        hot.add(new HotKeys(1, HotKeys.DEFAULT_BUFFER_SIZE, HotKeys.DEFAULT_CAPACITY,
            HotKeys.DEFAULT_HALF_LIFE));
        spaces.add(keys);
      }
      round(c, clock, random, registries, invalidators, hot, spaces); // fills registry and hot set
      Map<String, Long> before = counters();
      round(c, clock, random, registries, invalidators, hot, spaces);
      Map<String, Long> after = counters();

      double seconds = INTERVAL.toSeconds();
      long calls = delta(before, after, "calls");
      System.out.printf("control slot at %d simulated pods (heartbeat, live key-space read and "
          + "hot-key flush every %d s each, %d samples per flush): %,.0f commands/s, "
          + "%,.0f bytes/s in, %,.0f bytes/s out, %,.2f s of server CPU per second%n",
          PODS, INTERVAL.toSeconds(), HotKeys.DEFAULT_BUFFER_SIZE, calls / seconds,
          delta(before, after, "total_net_input_bytes") / seconds,
          delta(before, after, "total_net_output_bytes") / seconds,
          delta(before, after, "cpu_us") / 1e6 / seconds);
      Map<String, Long> perCommand = new TreeMap<>();
      after.forEach((k, v) -> {
        if (k.startsWith("cmdstat_")) {
          long d = v - before.getOrDefault(k, 0L);
          if (d > 0) {
            perCommand.put(k.substring("cmdstat_".length()), d);
          }
        }
      });
      perCommand.forEach((cmd, n) -> System.out.printf("  %-18s %,12.0f /s%n", cmd, n / seconds));
      // Bounds: hot-key flushes capped at HotKeys.MAX_IDS_PER_FLUSH ids (25,600 ZINCRBY/s at
      // this scale), no registry read returned to each pod per heartbeat.
      assertThat(calls / seconds).as("commands/s").isLessThan(40_000);
      assertThat(delta(before, after, "total_net_output_bytes") / seconds).as("bytes/s out")
          .isLessThan(100_000);
    } finally {
      c.close();
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }

  private static void round(ValkeyConnection<String> c, ManualClock clock, SplittableRandom random,
      List<AgentRegistry> registries, List<Invalidator> invalidators, List<HotKeys> hot,
      List<KeySpace> spaces) {
    clock.advance(INTERVAL);
    for (int i = 0; i < PODS; i++) {
      registries.get(i).heartbeat();
      invalidators.get(i).observeRegistry();
      HotKeys h = hot.get(i);
      for (int s = 0; s < HotKeys.DEFAULT_BUFFER_SIZE; s++) {
        double u = random.nextDouble();
        h.record("deal-" + (long) (1_000_000 * u * u * u));
      }
      h.flush(c, spaces.get(i), clock);
    }
  }

  /** Total calls (and per command), bytes in/out and server CPU microseconds. */
  private static Map<String, Long> counters() {
    Map<String, Long> out = new TreeMap<>();
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
    try (var raw = client.connect()) {
      long total = 0;
      for (String line : raw.sync().info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_")) {
          String name = line.substring(0, line.indexOf(':'));
          long calls = Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*", "$1"));
          out.put(name, calls);
          total += calls;
        }
      }
      out.put("calls", total);
      for (String line : (raw.sync().info("stats") + raw.sync().info("cpu")).split("\r?\n")) {
        String[] kv = line.split(":");
        if (kv.length == 2 && (kv[0].equals("total_net_input_bytes")
            || kv[0].equals("total_net_output_bytes"))) {
          out.put(kv[0], Long.parseLong(kv[1].trim()));
        }
        if (kv.length == 2 && (kv[0].equals("used_cpu_sys") || kv[0].equals("used_cpu_user"))) {
          out.merge("cpu_us", (long) (Double.parseDouble(kv[1].trim()) * 1e6), Long::sum);
        }
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    return out;
  }

  private static long delta(Map<String, Long> before, Map<String, Long> after, String key) {
    return after.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
  }
}
