package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every row of the origin forecast's model, one behaviour per test. */
class OriginForecastTest {

  static final Duration TTL = Duration.ofMinutes(4);

  static OriginForecast.Probe cold(String id, double rate) {
    return new OriginForecast.Probe(id, rate, false, 1);
  }

  static OriginForecast.Probe warm(String id, double rate) {
    return new OriginForecast.Probe(id, rate, true, 1);
  }

  /** The forecast of {@code probes} whose lookups are all the fleet's, share 1, steady 100. */
  static OriginForecast.Forecast of(List<OriginForecast.Probe> probes) {
    double requests = probes.stream().mapToDouble(p -> p.rate() * p.weight()).sum();
    return OriginForecast.of(
        new OriginForecast.Inputs(probes, requests, null, null, 100, 0, 1, TTL));
  }

  @Test
  void aCanaryHoldingEveryHotIdAddsNothing() {
    OriginForecast.Forecast f = of(List.of(warm("a", 50), warm("b", 5)));
    assertThat(f.peak()).isZero();
    assertThat(f.firstSeconds()).isZero();
    assertThat(f.extraReads()).isZero();
    assertThat(f.warmAfter()).isEqualTo(Duration.ZERO);
    assertThat(f.dominant()).isEmpty();
    assertThat(f.total()).isEqualTo(100);
  }

  @Test
  void aColdIdAddsItsChanceOfAReadInThePeakSecondAndOneReadInAll() {
    // One id looked up 2 times a second: read once, at its first lookup after the release.
    OriginForecast.Forecast f = of(List.of(cold("a", 2), warm("b", 30)));
    assertThat(f.peak()).isCloseTo(1 - Math.exp(-2), within(1e-9));
    assertThat(f.firstSeconds()).isCloseTo((1 - Math.exp(-20)) / 10, within(1e-9));
    assertThat(f.extraReads()).isCloseTo(1, within(1e-9));
    // 2 e^(−2t) = 0.1 × 0.8647 at t = ln(2 / 0.08647) / 2 = 1.571 s.
    assertThat(f.warmAfter().toMillis()).isCloseTo(1571, within(10L));
  }

  @Test
  void aVeryHotColdIdIsOneReadNotItsLookupRate() {
    OriginForecast.Forecast f = of(List.of(cold("a", 5000)));
    assertThat(f.peak()).isCloseTo(1, within(1e-9));
  }

  @Test
  void theSteadyRateIsCarriedAndTheTotalAddsThePeak() {
    OriginForecast.Forecast f = of(List.of(cold("a", 40)));
    assertThat(f.steady()).isEqualTo(100);
    assertThat(f.total()).isCloseTo(101, within(1e-9));
  }

  @Test
  void onlyTheTrafficTheReleaseMovesAddsReads() {
    List<OriginForecast.Probe> probes = List.of(cold("a", 40), cold("b", 10));
    OriginForecast.Forecast all = OriginForecast.of(
        new OriginForecast.Inputs(probes, 50, null, null, 0, 0, 1, TTL));
    OriginForecast.Forecast quarter = OriginForecast.of(
        new OriginForecast.Inputs(probes, 50, null, null, 0, 0, 0.25, TTL));
    assertThat(quarter.peak()).isCloseTo(all.peak() / 4, within(1e-9));
    assertThat(quarter.extraReads()).isCloseTo(all.extraReads() / 4, within(1e-9));
    assertThat(quarter.releasedShare()).isEqualTo(0.25);
  }

  @Test
  void aSampledProbeStandsForItsShareOfTheHotSet() {
    // 10 sampled ids standing for 100 each: 1,000 cold ids at 0.5/s, as if checked one by one.
    List<OriginForecast.Probe> sampled = new ArrayList<>();
    List<OriginForecast.Probe> whole = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      whole.add(cold("id-" + i, 0.5));
      if (i % 100 == 0) {
        sampled.add(new OriginForecast.Probe("id-" + i, 0.5, false, 100));
      }
    }
    OriginForecast.Forecast estimate = of(sampled);
    OriginForecast.Forecast exact = of(whole);
    assertThat(estimate.peak()).isCloseTo(exact.peak(), within(1e-6))
        .isCloseTo(1000 * (1 - Math.exp(-0.5)), within(1e-6));
    assertThat(estimate.firstSeconds()).isCloseTo(exact.firstSeconds(), within(1e-6));
    assertThat(estimate.extraReads()).isCloseTo(1000, within(1e-3));
  }

  @Test
  void withoutAShapeEveryTailLookupIsAReadForAWholeTtl() {
    // 100 lookups/s of the hot set (warm), 60 more of other ids; half the traffic moves.
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(warm("a", 100)), 160, null, null, 10, 0, 0.5, TTL));
    assertThat(f.tail()).isCloseTo(0.5 * 60, within(1e-9));
    assertThat(f.peak()).isCloseTo(f.tail(), within(1e-9));
    assertThat(f.firstSeconds()).isCloseTo(f.tail(), within(1e-9));
    assertThat(f.extraReads()).isCloseTo(30 * 240, within(1e-6));
    assertThat(f.warmAfter()).isEqualTo(TTL);
  }

  @Test
  void aTailIdLookedUpSeveralTimesASecondIsReadOnce() {
    // A flat hot set of 2 lookups/s per id: the 60 tail lookups/s are of 30 ids at 2/s, each
    // read once at its first lookup, like a cold hot-set id.
    TailShape flat = new TailShape(50, 2, 0);
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(warm("a", 100)), 160, flat, null, 10, 0, 1, TTL));
    assertThat(f.tail()).isCloseTo(30 * (1 - Math.exp(-2)), within(1e-9));
    assertThat(f.extraReads()).isCloseTo(30, within(1e-6));
    // 60 e^(−2t) = 0.1 × 25.94 at t = ln(60 / 2.594) / 2 = 1.571 s.
    assertThat(f.warmAfter().toMillis()).isCloseTo(1571, within(10L));
  }

  @Test
  void theTailIdsTheCanaryHasFilledAddNothing() {
    // 160 lookups/s: 100 of the warm hot-set id, 60 of the tail. The canary answers 85 % of its
    // lookups: 62.5 % are of the present hot id, so it holds (85 − 62.5) ÷ 37.5 = 60 % of the
    // tail lookups' ids.
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(warm("a", 100)), 160, null, 0.85, 10, 0, 0.5, TTL));
    assertThat(f.tail()).isCloseTo(0.5 * 60 * 0.4, within(1e-9));
    TailShape flat = new TailShape(50, 2, 0);
    assertThat(OriginForecast.of(new OriginForecast.Inputs(List.of(warm("a", 100)), 160, flat,
        0.85, 10, 0, 0.5, TTL)).tail()).isCloseTo(0.5 * 30 * (1 - Math.exp(-2)) * 0.4,
        within(1e-9));
    // A canary answering no more than its present hot-set lookups holds none of the tail;
    // one answering every lookup holds all of it.
    assertThat(OriginForecast.of(new OriginForecast.Inputs(List.of(warm("a", 100)), 160, null,
        0.5, 10, 0, 0.5, TTL)).tail()).isCloseTo(0.5 * 60, within(1e-9));
    assertThat(OriginForecast.of(new OriginForecast.Inputs(List.of(warm("a", 100)), 160, null,
        1.0, 10, 0, 0.5, TTL)).tail()).isZero();
  }

  @Test
  void fewerLookupsThanTheHotSetCountsMeanNoTail() {
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(cold("a", 100)), 20, null, null, 0, 0, 1, TTL));
    assertThat(f.tail()).isZero();
    assertThat(f.peak()).isCloseTo(1, within(1e-9));
  }

  @Test
  void aTailAboveATenthOfThePeakKeepsTheKeySpaceColderForTheWholeTtl() {
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(cold("a", 50)), 60, null, null, 0, 0, 1, TTL));
    assertThat(f.tail()).isCloseTo(10, within(1e-9));
    assertThat(f.warmAfter()).isEqualTo(TTL);
  }

  @Test
  void aRareColdIdStaysColdUntilTheHorizon() {
    // Looked up once in 10 minutes: its added rate stays above a tenth of the peak for the TTL.
    OriginForecast.Forecast f = of(List.of(cold("rare", 1.0 / 600)));
    assertThat(f.warmAfter()).isEqualTo(TTL);
    assertThat(f.extraReads()).isCloseTo(1 - Math.exp(-240.0 / 600), within(1e-9));
  }

  @Test
  void theHottestColdIdsDominateAtMostFiveAndLongIdsAreCut() {
    String longId = "x".repeat(100);
    OriginForecast.Forecast f = of(List.of(warm("hottest", 900), cold("b", 80), cold(longId, 70),
        cold("d", 60), cold("e", 50), cold("f", 40), cold("g", 30)));
    assertThat(f.dominant()).extracting(OriginForecast.HotId::id)
        .containsExactly("b", "x".repeat(64) + "...", "d", "e", "f");
    assertThat(f.dominant().get(0).rate()).isEqualTo(80);
  }

  @Test
  void itsDescriptionGivesEveryFigure() {
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(cold("a", 1200)), 1300, null, null, 800, 0, 1, TTL));
    assertThat(f.describe()).isEqualTo("releasing now adds ~101 reads/s at its peak (~100 "
        + "over the first 10 s, 100 from ids outside the hot set) on top of 800 now, warm after "
        + "4m, 24,001 extra reads");
  }

  @Test
  void theStableKeySpacesReadsLeaveWithTheReleaseButTheRestOfTheSteadyRateStays() {
    OriginForecast.Forecast f = OriginForecast.of(new OriginForecast.Inputs(
        List.of(cold("a", 1200)), 1300, null, null, 800, 300, 1, TTL));
    assertThat(f.staying()).isEqualTo(500);
    assertThat(f.total()).isCloseTo(500 + f.peak(), within(1e-9));
    assertThat(f.describe()).contains("on top of 800 now (300 of them end with the replaced "
        + "pods), warm after");
  }

  @Test
  void moreLeavingThanTheSteadyRateIsRefused() {
    assertThatThrownBy(() -> new OriginForecast.Inputs(List.of(), 0, null, null, 100, 101, 1, TTL))
        .hasMessageContaining("leaving origin rate 101.0 must be between 0 and the steady "
            + "origin rate 100.0");
  }

  @Test
  void noForecastSaysWhy() {
    OriginForecast.Forecast f = OriginForecast.Forecast.unknown("the hot set has no request rates");
    assertThat(f.known()).isFalse();
    assertThat(f.describe()).isEqualTo("no origin forecast: the hot set has no request rates");
  }

  @Test
  void aProbeWithANegativeRateOrAWeightBelowOneIsRefused() {
    assertThatThrownBy(() -> new OriginForecast.Probe("a", -1, false, 1))
        .hasMessageContaining("probe a: rate -1.0");
    assertThatThrownBy(() -> new OriginForecast.Probe("a", 1, false, 0.5))
        .hasMessageContaining("weight 0.5");
    assertThatThrownBy(
        () -> new OriginForecast.Inputs(List.of(), 0, null, null, 0, 0, 1, Duration.ZERO))
        .hasMessageContaining("horizon must be positive");
  }
}
