package io.warmgate.sim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.sim.spanner.SpannerCapacity;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's quick mode, as CI runs it: a 50-pod fleet at 50,000 lookups/s over 500,000
 * ids, Zipf s=1.21, against the capacity-modelled origin (a stand-in) sized for its steady
 * traffic.
 */
class QuickSimulationTest {

  private static Simulation.Run run;
  private static final List<String> LOG = new ArrayList<>();

  @BeforeAll
  static void simulate() {
    run = Simulation.run(SimParams.quick(1.21), LOG::add);
  }

  @Test
  void anUngatedReleaseSpikesTheOriginAtLeastFiveTimesItsSteadyRate() {
    SimResult a = run.result(Strategy.ALL_AT_ONCE);

    assertThat(a.steadyPerSecond()).isGreaterThan(0);
    assertThat(a.peakPerSecond()).isGreaterThanOrEqualTo((long) (5 * a.steadyPerSecond()));
    assertThat((double) a.peakPerSecond()).isGreaterThan(run.origin().capacity());
  }

  @Test
  void warmgatePreloadStaysUnderTheOriginsCapacityLine() {
    SimResult e = run.result(Strategy.PRELOAD);

    assertThat(e.gate().phase()).isEqualTo("Promoted");
    assertThat(e.preloadReads()).isGreaterThan(0);
    assertThat((double) e.peakPerSecond()).isLessThanOrEqualTo(run.origin().capacity());
    assertThat(e.peakUtilisation()).isLessThan(1.0);
    assertThat(e.deadlineLookups()).isZero();
  }

  @Test
  void theOperatorsForecastOfEachReleaseIsWithinTwentyPercentOfTheMeasuredRate() {
    assertThat(run.forecastChecks()).extracting(Simulation.ForecastCheck::strategy)
        .containsExactlyInAnyOrder(Strategy.ALL_AT_ONCE, Strategy.FIXED_WAIT, Strategy.ORGANIC,
            Strategy.PRELOAD, Strategy.ORIGIN_BUDGET);
    for (Simulation.ForecastCheck c : run.forecastChecks()) {
      assertThat(c.measuredPeak()).as("%s", c.strategy()).isPositive();
      assertThat(Math.abs(c.error())).as("%s: forecast %s, measured %d", c.strategy(),
          c.forecast().describe(), c.measuredPeak()).isLessThanOrEqualTo(0.20);
    }
  }

  @Test
  void anOriginBudgetTheForecastExceedsHoldsTheReleaseUntilMaxWait() {
    SimResult f = run.result(Strategy.ORIGIN_BUDGET);

    assertThat(f.gate().phase()).isEqualTo("TimedOut");
    assertThat(f.gate().releasedAt()).isGreaterThanOrEqualTo(SimParams.MAX_WAIT);
    assertThat(f.gate().forecast().total()).isGreaterThan(run.origin().recommendedLine());
    assertThat(f.gate().message()).contains("not warm").contains("reads/s budget");
  }

  @Test
  void everyStrategyIsMeasuredOverTheSameWindowFromTheSameSteadyState() {
    double slowest = run.results().stream().mapToDouble(SimResult::releaseSeconds).max()
        .orElseThrow();

    assertThat(run.windowSeconds()).isEqualTo(slowest + SimParams.L2_TTL);
    assertThat(run.results()).extracting(r -> r.timeline().length).containsOnly(
        run.results().get(0).timeline().length);
    assertThat(run.results()).extracting(SimResult::steadyPerSecond).containsOnly(
        run.results().get(0).steadyPerSecond());
    assertThat(run.results().get(0).steadyPerSecond())
        .isCloseTo(run.steadyEstimate(), org.assertj.core.api.Assertions.withinPercentage(3));
  }

  @Test
  void theOriginIsSizedSoThatSteadyTrafficUsesAtMostAThirdOfIt() {
    assertThat(run.steadyEstimate() / run.origin().capacity()).isLessThanOrEqualTo(1.0 / 3);
    assertThat(Simulation.size(run.steadyEstimate())).isEqualTo(run.origin().nodes());
    assertThat(run.origin().capacity())
        .isEqualTo(run.origin().nodes() * SpannerCapacity.SINGLE_ROW_READS_PER_NODE);
  }

  @Test
  void theSameSeedGivesTheSameFigures() {
    Simulation.Run again = Simulation.run(SimParams.quick(1.21), line -> { });

    for (Strategy s : Strategy.values()) {
      assertThat(again.result(s).timeline()).isEqualTo(run.result(s).timeline());
      assertThat(again.result(s).totalReads()).isEqualTo(run.result(s).totalReads());
    }
  }
}
