package io.warmgate.agent.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The hot set on a real redis-server and a Redis cluster: ranking, decay, rescaling, trimming. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class HotKeysIT {

  private static final Duration HALF_LIFE = Duration.ofMinutes(10);
  private final ManualClock clock = new ManualClock();
  private final KeySpace keys = new KeySpace("deals", "0123456789ab");
  @RegisterExtension
  final L2Extension valkey;
  private ValkeyConnection<String> connection;
  private RedisClusterCommands<String, String> raw;

  HotKeysIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void connect() {
    connection = valkey.connection();
    raw = valkey.strings();
  }

  private void lookups(HotKeys hot, String id, int n) {
    for (int i = 0; i < n; i++) {
      hot.record(id);
    }
  }

  private double score(String id) {
    return raw.zscore("{wg:deals}:hot", id);
  }

  @Test
  void aZipfWorkloadOfSampledLookupsRanksItsHottestIdsFirst() {
    List<String> ids = IntStream.range(0, 1_000).mapToObj(i -> "deal-" + i).toList();
    HotKeys hot = new HotKeys(16, 4096, 50_000, HALF_LIFE);
    // Zipf(s = 1.2) over 1 000 ids by inverse transform on the cumulative weights.
    double[] cumulative = new double[ids.size()];
    double sum = 0;
    for (int k = 0; k < ids.size(); k++) {
      sum += 1 / Math.pow(k + 1, 1.2);
      cumulative[k] = sum;
    }
    Random random = new Random(42);
    for (int i = 1; i <= 400_000; i++) {
      double u = random.nextDouble() * sum;
      int k = java.util.Arrays.binarySearch(cumulative, u);
      hot.record(ids.get(k >= 0 ? k : -k - 1)); // what the cache does on each lookup
      if (i % 40_000 == 0) {
        clock.advance(Duration.ofSeconds(5));
        hot.flush(connection, keys, clock); // ~2 500 samples per flush, within the ring
      }
    }
    // Expected samples of ranks 5 and 6 in 25 000: ~840 and ~670, over four standard deviations apart.
    assertThat(raw.zrevrange("{wg:deals}:hot", 0, 4))
        .containsExactly("deal-0", "deal-1", "deal-2", "deal-3", "deal-4");
    // The decayed score estimates lookups: the hottest id got ~24 % of 400 000.
    assertThat(score("deal-0")).isBetween(80_000.0, 120_000.0);
  }

  @Test
  void aLookupOneHalfLifeAgoWeighsHalfOfOneNow() {
    HotKeys hot = new HotKeys(1, 1024, 100, HALF_LIFE);
    lookups(hot, "old", 100);
    hot.flush(connection, keys, clock);
    clock.advance(HALF_LIFE);
    lookups(hot, "new", 60);
    hot.flush(connection, keys, clock);

    assertThat(raw.zrevrange("{wg:deals}:hot", 0, -1)).containsExactly("new", "old");
    assertThat(score("new") / score("old")).isCloseTo(1.2, within(1e-9));
    assertThat(raw.get("{wg:deals}:hot:landmark")).isEqualTo(Long.toString(clock.millis()
        - HALF_LIFE.toMillis()));
  }

  @Test
  void rescalingMovesTheLandmarkAndKeepsTheRatiosWhileDroppingIdsDecayedToNothing() {
    HotKeys hot = new HotKeys(1, 1024, 100, HALF_LIFE);
    long landmark = clock.millis();
    lookups(hot, "forgotten", 1);
    hot.flush(connection, keys, clock);
    clock.advance(HALF_LIFE.multipliedBy(60));
    lookups(hot, "a", 100);
    hot.flush(connection, keys, clock);
    clock.advance(HALF_LIFE);
    lookups(hot, "b", 100);
    hot.flush(connection, keys, clock);
    assertThat(score("b") / score("a")).isCloseTo(2.0, within(1e-9));

    // 66 half-lives after the landmark, beyond the 64 that trigger a rescale: every score is
    // multiplied by 2^-66 and the landmark moves 66 half-lives on.
    clock.advance(HALF_LIFE.multipliedBy(5));
    lookups(hot, "c", 1);
    hot.flush(connection, keys, clock);

    assertThat(Long.parseLong(raw.get("{wg:deals}:hot:landmark")))
        .isEqualTo(landmark + 66 * HALF_LIFE.toMillis());
    assertThat(score("a")).isCloseTo(100.0 / 64, within(1e-9)); // 100 × 2^60 × 2^-66
    assertThat(score("b")).isCloseTo(100.0 / 32, within(1e-9));
    assertThat(score("c")).isEqualTo(1.0); // weight 2^0 right at the new landmark
    // "forgotten" decayed to 2^-66, below the minimum score, and is gone.
    assertThat(raw.zscore("{wg:deals}:hot", "forgotten")).isNull();
    assertThat(raw.zrevrange("{wg:deals}:hot", 0, -1)).containsExactly("b", "a", "c");
  }

  @Test
  void theSetIsTrimmedToItsCapacityKeepingTheHottest() {
    HotKeys hot = new HotKeys(1, 1024, 10, HALF_LIFE);
    for (int i = 0; i < 25; i++) {
      lookups(hot, "id-" + i, i + 1);
    }
    hot.flush(connection, keys, clock);
    assertThat(raw.zcard("{wg:deals}:hot")).isEqualTo(10);
    List<String> expected = new ArrayList<>();
    for (int i = 24; i >= 15; i--) {
      expected.add("id-" + i);
    }
    assertThat(raw.zrevrangeWithScores("{wg:deals}:hot", 0, -1)).extracting(ScoredValue::getValue)
        .containsExactlyElementsOf(expected);
  }

  @Test
  void theMetaKeepsTheHalfLifeAndTheStartOfObservationForReadersOfRates() {
    HotKeys hot = new HotKeys(4, 1024, 100, HALF_LIFE);
    long start = clock.millis();
    lookups(hot, "a", 100); // one in four is sampled: a flush sends some
    hot.flush(connection, keys, clock);
    clock.advance(HALF_LIFE.multipliedBy(70)); // past a rescale, which moves the landmark
    lookups(hot, "a", 100);
    hot.flush(connection, keys, clock);

    assertThat(raw.hgetall("{wg:deals}:hot:meta")).containsExactlyInAnyOrderEntriesOf(Map.of(
        "since", Long.toString(start), "halfLifeMs", Long.toString(HALF_LIFE.toMillis()),
        "samplePeriod", "4"));
    assertThat(raw.get("{wg:deals}:hot:landmark")).isNotEqualTo(Long.toString(start));
  }

  @Test
  void aSteadyRateIsRecoveredFromTheScoreLandmarkAndMeta() {
    // 12 lookups per 5-s flush for 25 minutes: 2.4 lookups/s.
    HotKeys hot = new HotKeys(1, 1024, 100, HALF_LIFE);
    for (int flush = 0; flush < 300; flush++) {
      clock.advance(Duration.ofSeconds(5));
      lookups(hot, "a", 12);
      hot.flush(connection, keys, clock);
    }
    Map<String, String> meta = raw.hgetall("{wg:deals}:hot:meta");
    double h = Double.parseDouble(meta.get("halfLifeMs"));
    double observed = clock.millis() - Double.parseDouble(meta.get("since"));
    double decayed = score("a")
        * Math.pow(2, -(clock.millis() - Double.parseDouble(raw.get("{wg:deals}:hot:landmark"))) / h);
    double exposure = h / Math.log(2) * (1 - Math.pow(2, -observed / h));

    // Lookups land at flush times, so the sum runs about half a flush above the integral (+0.4 %).
    assertThat(decayed / exposure * 1000).isCloseTo(2.4, within(0.02));
  }

  @Test
  void aHotSetWithoutMetaIsObservedSinceItsLandmarkAndADeletedOneStartsOver() {
    long landmark = clock.millis() - HALF_LIFE.toMillis();
    raw.set("{wg:deals}:hot:landmark", Long.toString(landmark));
    raw.zadd("{wg:deals}:hot", 50, "a"); // written by an agent that kept no meta
    HotKeys hot = new HotKeys(1, 1024, 100, HALF_LIFE);
    lookups(hot, "a", 1);
    hot.flush(connection, keys, clock);
    assertThat(raw.hget("{wg:deals}:hot:meta", "since")).isEqualTo(Long.toString(landmark));

    clock.advance(Duration.ofMinutes(1));
    lookups(hot, "a", 1);
    hot.flush(connection, keys, clock);
    assertThat(raw.hget("{wg:deals}:hot:meta", "since")).isEqualTo(Long.toString(landmark));

    raw.del("{wg:deals}:hot");
    clock.advance(Duration.ofMinutes(1));
    lookups(hot, "b", 1);
    hot.flush(connection, keys, clock);
    assertThat(raw.hget("{wg:deals}:hot:meta", "since")).isEqualTo(Long.toString(clock.millis()));
  }

  @Test
  void aFlushWithoutSamplesSendsNothing() {
    HotKeys hot = new HotKeys(1, 1024, 10, HALF_LIFE);
    assertThat(hot.flush(connection, keys, clock)).isZero();
    assertThat(raw.exists("{wg:deals}:hot", "{wg:deals}:hot:landmark", "{wg:deals}:hot:meta"))
        .isZero();
  }
}
