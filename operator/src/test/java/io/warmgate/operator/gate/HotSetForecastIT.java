package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.valkey.ValkeyCommands;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hot-set forecast on what agents really write: the agents' {@link HotKeys} (default sampling
 * and half-life) flushes half an hour of Zipf traffic into a real redis-server on a hand-moved
 * clock, the operator forecasts which tracked ids the next {@code l2Ttl} will request, and the
 * next {@code l2Ttl} of the same traffic says which it did.
 */
class HotSetForecastIT {

  static final Logger log = LoggerFactory.getLogger(HotSetForecastIT.class);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static final int IDS = 10_000;
  static final double ZIPF_EXPONENT = 1.0;
  static final int LOOKUPS_PER_SECOND = 200;
  static final Duration OBSERVED = Duration.ofMinutes(30);
  static final Duration L2_TTL = Duration.ofMinutes(4);
  static final int HOT_SET_SIZE = 10_000;
  static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

  final ControlKeys keys = new ControlKeys("deals");
  RedisClient client;
  StatefulRedisConnection<String, String> connection;
  RedisCommands<String, String> r;

  @BeforeEach
  void connect() {
    redis.flushAll();
    client = RedisClient.create(redis.uri());
    connection = client.connect();
    r = connection.sync();
  }

  @AfterEach
  void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  /** Ids {@code deal-0} (hottest) to {@code deal-<IDS-1>}, drawn with Zipf weights 1 / k^s. */
  static final class Zipf {
    private final double[] cumulative = new double[IDS];
    private final Random random;

    Zipf(long seed) {
      double sum = 0;
      for (int k = 0; k < IDS; k++) {
        sum += 1 / Math.pow(k + 1, ZIPF_EXPONENT);
        cumulative[k] = sum;
      }
      random = new Random(seed);
    }

    String next() {
      int k = Arrays.binarySearch(cumulative, random.nextDouble() * cumulative[IDS - 1]);
      return "deal-" + (k >= 0 ? k : -k - 1);
    }
  }

  @Test
  void theForecastPicksTheIdsTheNextWindowRequestsAndTheWarmJobHoldsExactlyThem() {
    Zipf traffic = new Zipf(7);
    HotKeys hot = new HotKeys();
    KeySpace agentKeys = new KeySpace("deals", "aaa111");
    Instant now = START;
    long flushSeconds = HotKeys.FLUSH_INTERVAL.toSeconds();
    for (long s = 0; s < OBSERVED.toSeconds(); s += flushSeconds) {
      for (long i = 0; i < LOOKUPS_PER_SECOND * flushSeconds; i++) {
        hot.record(traffic.next());
      }
      now = now.plusSeconds(flushSeconds);
      hot.flush(connection, agentKeys, InstantSource.fixed(now));
    }

    NamespaceStats stats = new NamespaceStats(new ValkeyCommands(connection.sync(), connection.async()), keys,
        Duration.ofSeconds(10));
    HotSetForecast.Cut cut = stats.hotSet(HOT_SET_SIZE, L2_TTL, now);
    List<String> tracked = r.zrevrange(keys.hot(), 0, HOT_SET_SIZE - 1L);

    // The next l2Ttl of the same traffic: what a value preloaded now could serve before expiring.
    Map<String, Integer> requests = new HashMap<>();
    long window = LOOKUPS_PER_SECOND * L2_TTL.toSeconds();
    for (long i = 0; i < window; i++) {
      requests.merge(traffic.next(), 1, Integer::sum);
    }
    Set<String> requested = requests.keySet();
    long unread = cut.ids().stream().filter(id -> !requested.contains(id)).count();
    long trackedUnread = tracked.stream().filter(id -> !requested.contains(id)).count();
    long served = cut.ids().stream().mapToLong(id -> requests.getOrDefault(id, 0)).sum();
    double waste = (double) unread / cut.size();
    double trackedWaste = (double) trackedUnread / tracked.size();
    log.info("{}; not requested in the next {}: {} of {} ({} %), of all {} tracked: {} ({} %); the "
            + "chosen ids drew {} of the window's {} requests ({} %)", cut.describe(),
        GateDecision.seconds(L2_TTL), unread, cut.size(), percent(waste), tracked.size(),
        trackedUnread, percent(trackedWaste), served, window, percent((double) served / window));

    assertThat(cut.noForecast()).isNull();
    assertThat(cut.tracked()).isEqualTo(tracked.size());
    assertThat(cut.ids()).isEqualTo(tracked.subList(0, cut.size()));
    assertThat(waste).as("share of the forecast ids not requested within l2Ttl").isLessThan(0.10);
    // What preloading every tracked id would have wasted, and what the chosen ids still serve.
    assertThat(trackedWaste).isGreaterThan(0.15);
    assertThat((double) served / window).isGreaterThan(0.6);

    // The Preload gate opens the warm job for exactly these ids.
    WarmupSpec spec = GateDecisionTest.spec();
    spec.setMode(WarmupMode.Preload);
    spec.setHotSetSize(HOT_SET_SIZE);
    Decision decision = GateDecisionTest.decide(GateDecisionTest.held(), spec, null,
        GateDecisionTest.forecast(stats.coverage("bbb", cut.ids()), cut), Duration.ZERO);
    assertThat(decision).isInstanceOf(Decision.OpenWarmJob.class);
    Decision.OpenWarmJob open = (Decision.OpenWarmJob) decision;
    assertThat(WarmJobs.open(r, keys, open.schemaHash(), open.target(), open.rate(),
        cut.describe(), "7d9f8b6c5", now)).isTrue();

    assertThat(r.lrange(keys.warmIds("bbb"), 0, -1)).isEqualTo(cut.ids());
    WarmJob job = WarmJobs.read(r, keys, "bbb");
    assertThat(job.target()).isEqualTo(cut.size());
    assertThat(job.hotSetText()).isEqualTo(cut.describe());
  }

  private static String percent(double share) {
    return String.format(Locale.ROOT, "%.1f", share * 100);
  }
}
