package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.ScoredValue;
import io.warmgate.contract.valkey.ControlKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The hot-set forecast's arithmetic on scores as the agents' forward decay builds them. */
class HotSetForecastTest {

  static final ControlKeys KEYS = new ControlKeys("deals");
  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final Duration H = Duration.ofMinutes(10);
  static final Duration W = Duration.ofMinutes(4);

  /**
   * Scores of ids requested at steady {@code rates} (per ms) from {@code since} to {@link #NOW},
   * relative to {@code landmark}: each lookup at t adds {@code 2^((t − landmark) / h)}, so a rate
   * r adds {@code r × (h / ln 2) × (2^((now − landmark) / h) − 2^((since − landmark) / h))}.
   */
  static List<ScoredValue<String>> steady(double[] rates, Instant since, Instant landmark) {
    double h = H.toMillis();
    double weightNow = Math.pow(2, (NOW.toEpochMilli() - landmark.toEpochMilli()) / h);
    double weightSince = Math.pow(2, (since.toEpochMilli() - landmark.toEpochMilli()) / h);
    List<ScoredValue<String>> ranked = new ArrayList<>();
    for (int i = 0; i < rates.length; i++) {
      ranked.add(ScoredValue.just(rates[i] * h / Math.log(2) * (weightNow - weightSince),
          "id-" + i));
    }
    return ranked;
  }

  /** Zipf rates (s = 1) over {@code n} ids, the hottest expected {@code hottestInW} times in W. */
  static double[] zipf(int n, double hottestInW) {
    return IntStream.rangeClosed(1, n).mapToDouble(k -> hottestInW / k / W.toMillis()).toArray();
  }

  /** The meta of agents that record every lookup (sample period 1). */
  static Map<String, String> meta(Instant since) {
    return Map.of("since", Long.toString(since.toEpochMilli()),
        "halfLifeMs", Long.toString(H.toMillis()), "samplePeriod", "1");
  }

  @Test
  void theCutCarriesEachIdsSteadyLookupRatePerSecond() {
    Instant since = NOW.minus(H.multipliedBy(3));
    // 6 and 0.5 lookups per second.
    double[] rates = {6e-3, 5e-4};
    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, steady(rates, since, since), null,
        meta(since), NOW, W);
    assertThat(cut.rates()).isEmpty(); // no landmark: unforecast, no rates
    cut = HotSetForecast.of(KEYS, steady(rates, since, since),
        Long.toString(since.toEpochMilli()), meta(since), NOW, W);
    // One sample discounted: (C − 1) / E, E = 757.4 s.
    assertThat(cut.rates()).hasSize(2);
    assertThat(cut.rates().get(0)).isCloseTo(6 - 1 / 757.4, within(1e-3));
    assertThat(cut.rates().get(1)).isCloseTo(0.5 - 1 / 757.4, within(1e-3));
  }

  @Test
  void steadyZipfRatesAreCutWhereTheMeanChanceOfNoReadReachesFivePercent() {
    Instant since = NOW.minus(H.multipliedBy(3));
    // The k-th hottest of 10,000 ids is expected 1,000 / k times in W. Observed for three
    // half-lives (E = 757.4 s), the discounted lookup is W / E = 0.317 expected reads, so the
    // forecast sees λ_k = 1000 / k − 0.317: the 493 hottest miss W with a mean probability of
    // 4.984 %, the 494 hottest with 5.011 %.
    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, steady(zipf(10_000, 1_000), since, since),
        Long.toString(since.toEpochMilli()), meta(since), NOW, W);

    assertThat(cut.size()).isEqualTo(493);
    assertThat(cut.ids()).startsWith("id-0", "id-1").endsWith("id-492");
    assertThat(cut.tracked()).isEqualTo(10_000);
    assertThat(cut.expectedWaste()).isCloseTo(0.04984, within(0.00001));
    assertThat(cut.noForecast()).isNull();
    assertThat(cut.describe())
        .isEqualTo("hot set: 493 of 10,000 tracked ids expected to be read within l2Ttl 4m");
  }

  @Test
  void theObservationTimeTurnsScoresIntoRatesAMinuteInAndHundredsOfHalfLivesIn() {
    double[] rates = zipf(10_000, 1_000);
    // A minute in (T ≪ h), the scores hold 1/15 of the steady state's decayed count: E = 58.0 s.
    // The rates come out right, and the discounted lookup weighs W / E = 4.14 reads: 191 ids.
    // Taking E = h / ln 2, as if observed forever, would read rates 15 times too low: 12 ids.
    Instant shortSince = NOW.minus(Duration.ofMinutes(1));
    HotSetForecast.Cut young = HotSetForecast.of(KEYS, steady(rates, shortSince, shortSince),
        Long.toString(shortSince.toEpochMilli()), meta(shortSince), NOW, W);
    // 500 half-lives in (T ≫ h), E = h / ln 2 = 865.6 s and the discount weighs 0.277 reads: 501
    // ids; the landmark, moved by rescales, is half a half-life old.
    Instant longSince = NOW.minus(H.multipliedBy(500));
    Instant rescaled = NOW.minus(H.dividedBy(2));
    HotSetForecast.Cut old = HotSetForecast.of(KEYS, steady(rates, longSince, rescaled),
        Long.toString(rescaled.toEpochMilli()), meta(longSince), NOW, W);

    assertThat(young.size()).isEqualTo(191);
    assertThat(old.size()).isEqualTo(501);
  }

  @Test
  void oneSampleIsDiscountedSoIdsSampledOnceAreNotKept() {
    Instant since = NOW.minus(H.multipliedBy(3));
    // Sampled 1 in 16: 10 ids with three samples' worth of lookups (48 in E), 30 with one (16).
    Map<String, String> meta = new HashMap<>(meta(since));
    meta.put("samplePeriod", "16");
    double[] rates = new double[40];
    for (int i = 0; i < rates.length; i++) {
      rates[i] = (i < 10 ? 48 : 16) / 757.4 / 1000; // lookups of E, per ms
    }
    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, steady(rates, since, since),
        Long.toString(since.toEpochMilli()), meta, NOW, W);

    // Undiscounted, 16 lookups in E read as 16 × 240 / 757.4 = 5.1 reads in W (0.6 % missed).
    assertThat(cut.ids()).hasSize(10).endsWith("id-9");
  }

  @Test
  void idsNotExpectedWithinTheWindowAreAllCut() {
    Instant since = NOW.minus(H);
    // The hottest is expected twice in W: e^-2 = 13.5 % of a preload of it alone is waste.
    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, steady(zipf(100, 2), since, since),
        Long.toString(since.toEpochMilli()), meta(since), NOW, W);

    assertThat(cut.ids()).isEmpty();
    assertThat(cut.tracked()).isEqualTo(100);
    assertThat(cut.expectedWaste()).isZero();
  }

  @Test
  void withoutMetaAllTrackedIdsAreKeptAndTheReasonIsSaid() {
    Instant since = NOW.minus(H);
    List<ScoredValue<String>> ranked = steady(zipf(300, 2), since, since);

    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, ranked, Long.toString(since.toEpochMilli()),
        Map.of(), NOW, W);

    assertThat(cut.ids()).hasSize(300).startsWith("id-0").endsWith("id-299");
    assertThat(cut.describe()).isEqualTo("hot set: all 300 tracked ids, not forecast: "
        + "{wg:deals}:hot:meta is missing (agents of an older version do not write it)");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', textBlock = """
      halfLifeMs | 0           | {wg:deals}:hot:meta field halfLifeMs is '0', expected a positive number of milliseconds
      halfLifeMs | 10m         | {wg:deals}:hot:meta field halfLifeMs is '10m', expected a positive number of milliseconds
      halfLifeMs |             | {wg:deals}:hot:meta field halfLifeMs is missing, expected a positive number of milliseconds
      samplePeriod | 0         | {wg:deals}:hot:meta field samplePeriod is '0', expected a positive integer
      samplePeriod |           | {wg:deals}:hot:meta field samplePeriod is missing, expected a positive integer
      since      | -5          | {wg:deals}:hot:meta field since is '-5', expected epoch milliseconds
      since      | 1e12        | {wg:deals}:hot:meta field since is '1e12', expected epoch milliseconds
      since      | 99999999999999999999 | {wg:deals}:hot:meta field since is '99999999999999999999', expected epoch milliseconds
      since      | 1772366400000 | {wg:deals}:hot:meta field since (1772366400000) is not before now (1772366400000), so no request rate is known yet
      since      | 1772366460000 | {wg:deals}:hot:meta field since (1772366460000) is not before now (1772366400000), so no request rate is known yet
      landmark   | soon        | {wg:deals}:hot:landmark is 'soon', expected epoch milliseconds
      landmark   |             | {wg:deals}:hot:landmark is missing, expected epoch milliseconds
      """)
  void malformedMetaOrLandmarkKeepsAllTrackedIds(String field, String value, String reason) {
    Instant since = NOW.minus(H);
    Map<String, String> meta = new HashMap<>(meta(since));
    String landmark = Long.toString(since.toEpochMilli());
    if (field.equals("landmark")) {
      landmark = value;
    } else if (value == null) {
      meta.remove(field);
    } else {
      meta.put(field, value);
    }

    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, steady(zipf(50, 2), since, since), landmark,
        meta, NOW, W);

    assertThat(cut.ids()).hasSize(50);
    assertThat(cut.noForecast()).isEqualTo(reason);
  }

  @Test
  void anEmptyHotSetIsAnEmptyCut() {
    HotSetForecast.Cut cut = HotSetForecast.of(KEYS, List.of(), null, Map.of(), NOW, W);

    assertThat(cut.ids()).isEmpty();
    assertThat(cut.tracked()).isZero();
    assertThat(cut.noForecast()).isNull();
  }
}
