package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The release plan as a decision table. The fleet: 4 pods, a hot set of 100 ids at 2 lookups/s
 * each (flat, so lookups outside the hot set continue it: ids at 2 lookups/s each),
 * an origin serving 10 reads/s now, all of it from the key spaces the release replaces. A cold id
 * looked up 2 times a second is read in the release's first second with probability
 * 1 − e^−2 = 0.8647, so at share s each cold hot id adds s × 0.8647 reads/s to the peak.
 */
class ReleasePlanTest {

  static final double FIRST_SECOND = 1 - Math.exp(-2);
  static final Duration TTL = Duration.ofMinutes(4);

  static ReleasePlan.Inputs fleet(double requestRate, Integer budget, int hotSetSize,
      int preloadRate) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ids.add("deal-" + i);
    }
    return new ReleasePlan.Inputs(ids, Collections.nCopies(100, 2.0), requestRate, 10, 10, 4,
        budget, hotSetSize, preloadRate, TTL);
  }

  static ReleasePlan.Row row(ReleasePlan.Plan plan, String letter) {
    return plan.rows().stream().filter(r -> r.letter().equals(letter)).findFirst().orElseThrow();
  }

  @Test
  void everyPodAtOnceReadsEveryHotIdAndTheStableReadsEnd() {
    ReleasePlan.Plan plan = ReleasePlan.of(fleet(200, null, 2000, 50));
    ReleasePlan.Row a = row(plan, "a");
    assertThat(a.originAtPeak()).isCloseTo(100 * FIRST_SECOND, within(1e-6));
    assertThat(a.forecast().extraReads()).isCloseTo(100, within(1e-6));
    assertThat(a.hold()).isZero();
  }

  @Test
  void onePodAtATimeMovesAQuarterOfTheTrafficAndOfTheStableReads() {
    ReleasePlan.Row b = row(ReleasePlan.of(fleet(200, null, 2000, 50)), "b");
    // 10 now − 2.5 ending with the first pod + 100 × 0.25 × 0.8647.
    assertThat(b.originAtPeak()).isCloseTo(7.5 + 25 * FIRST_SECOND, within(1e-6));
  }

  @Test
  void preloadAsThePolicyStandsWarmsItsHotSetBeforeMovingTheOtherThreeQuarters() {
    ReleasePlan.Plan plan = ReleasePlan.of(fleet(200, null, 40, 8));
    ReleasePlan.Row e = row(plan, "e");
    assertThat(e.preloaded()).isEqualTo(40);
    assertThat(e.hold()).isEqualTo(Duration.ofSeconds(5));
    assertThat(e.originAtPeak()).isCloseTo(60 * 0.75 * FIRST_SECOND, within(1e-6));
    assertThat(plan.rows()).extracting(ReleasePlan.Row::letter).containsExactly("a", "b", "e");
  }

  @Test
  void withoutABudgetItSuggestsTheLeastThePreloadedWholeHotSetFitsUnder() {
    ReleasePlan.Settings s = ReleasePlan.of(fleet(200, null, 2000, 50)).settings();
    assertThat(s.hotSetSize()).isEqualTo(100);
    assertThat(s.budgetGiven()).isFalse();
    // Every hot id preloaded and no lookup outside the hot set: nothing is added, nothing stays.
    assertThat(s.originBudget()).isZero();
    assertThat(s.hold()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.maxWait()).isEqualTo(ReleasePlan.MIN_MAX_WAIT);
  }

  @Test
  void aBudgetChoosesTheSmallestHotSetWhoseReleaseFitsAndCapsThePreloadRate() {
    // Budget 30: (100 − n) × 0.75 × 0.8647 ≤ 30 first holds at n = 54.
    ReleasePlan.Plan plan = ReleasePlan.of(fleet(200, 30, 2000, 50));
    ReleasePlan.Settings s = plan.settings();
    assertThat(s.hotSetSize()).isEqualTo(54);
    assertThat(s.fits()).isTrue();
    assertThat(46 * 0.75 * FIRST_SECOND).isLessThanOrEqualTo(30);
    assertThat(47 * 0.75 * FIRST_SECOND).isGreaterThan(30);
    ReleasePlan.Row f = row(plan, "f");
    assertThat(f.originAtPeak()).isLessThanOrEqualTo(30);
    // The preload runs at the budget less the steady rate: 20 ids/s, not 50.
    assertThat(f.preloadRate()).isEqualTo(20);
    assertThat(f.hold()).isEqualTo(Duration.ofMillis(2700));
  }

  @Test
  void lookupsOutsideTheHotSetThatExceedTheBudgetCannotFitWhateverIsPreloaded() {
    // 100 lookups/s outside the hot set: 50 ids at 2/s, 50 × 0.75 × 0.8647 = 32.4 reads/s > 30.
    ReleasePlan.Plan plan = ReleasePlan.of(fleet(300, 30, 2000, 50));
    assertThat(plan.settings().fits()).isFalse();
    assertThat(plan.settings().hotSetSize()).isEqualTo(100);
    assertThat(row(plan, "f").forecast().tail()).isCloseTo(50 * 0.75 * FIRST_SECOND,
        within(1e-6));
    assertThat(PlanText.render("shop/deals", plan, "--budget"))
        .contains("Does not fit").contains("32 of them for ids outside the hot set");
  }

  @Test
  void maxWaitIsTwiceTheHoldInWholeMinutes() {
    ReleasePlan.Settings s = ReleasePlan.of(fleet(200, null, 2000, 1)).settings();
    assertThat(s.hold()).isEqualTo(Duration.ofSeconds(100));
    assertThat(s.maxWait()).isEqualTo(Duration.ofMinutes(4));
  }

  @Test
  void aBudgetNotAboveTheSteadyRateIsAProblemNamingBoth() {
    ReleasePlan.Plan plan = ReleasePlan.of(fleet(200, 10, 2000, 50));
    assertThat(plan.rows()).isEmpty();
    assertThat(plan.problem()).contains("budget of 10 reads/s").contains("the 10 reads/s");
  }

  @Test
  void aHotSetWithoutRatesIsAProblem() {
    ReleasePlan.Plan plan = ReleasePlan.of(new ReleasePlan.Inputs(List.of(), List.of(), 0, 0, 0,
        1, null, 100, 10, TTL));
    assertThat(plan.problem()).contains("no request rates");
  }

  @Test
  void badInputsAreRefusedNamingTheValue() {
    assertThatThrownBy(() -> new ReleasePlan.Inputs(List.of("a"), List.of(1.0), 1, 0, 0, 0,
        null, 100, 10, TTL)).hasMessageContaining("at least one pod, not 0");
    assertThatThrownBy(() -> new ReleasePlan.Inputs(List.of("a"), List.of(1.0), 1, 0, 0, 1,
        0, 100, 10, TTL)).hasMessageContaining("budget 0");
  }

  @Test
  void theTextNamesEveryStrategyAndTheSettings() {
    String text = PlanText.render("shop/deals", ReleasePlan.of(fleet(200, 30, 2000, 50)),
        "--budget");
    assertThat(text).contains("(a) every pod at once, no gate")
        .contains("(b) one pod at a time (the first of 4 steps)")
        .contains("(e) warmgate Preload, hotSetSize 2,000: 100 ids at 20 ids/s")
        .contains("(f) warmgate Preload under originBudget 30: 54 ids at 20 ids/s")
        .contains("warmup.hotSetSize:   54").contains("warmup.originBudget: 30")
        .contains("warmup.maxWait:      1m").contains("Budget: 30 origin reads/s (--budget)")
        .doesNotContain("Does not fit");
  }
}
