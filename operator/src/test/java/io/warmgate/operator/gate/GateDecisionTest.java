package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.model.WarmupSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every row of the gate's decision table. */
class GateDecisionTest {

  static final Instant PAUSED = Instant.parse("2026-01-02T03:00:00Z");
  static final Duration GRACE = Duration.ofSeconds(30);
  static final List<RolloutView.Step> STEPS = List.of(new RolloutView.Step(false, false),
      new RolloutView.Step(true, true), new RolloutView.Step(false, false));

  /** A rollout with canary "c1" over stable "s1" at step {@code step}, paused at step 1. */
  static RolloutView rollout(Integer step, boolean paused, boolean abort) {
    return new RolloutView("ns", "app", "uid", "7", STEPS, "c1", "s1", step,
        paused ? List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED)) : List.of(),
        abort);
  }

  static RolloutView held() {
    return rollout(1, true, false);
  }

  static GateInputs.Observed seen(Set<String> canary, Set<String> stable, Coverage coverage,
      Double hitRatio, WarmJob job) {
    return new GateInputs.Observed(true, null, canary, stable, coverage, hitRatio, job, null);
  }

  /** The canary "bbb" over stable "aaa", coverage measured on the forecast cut {@code hotSet}. */
  static GateInputs.Observed forecast(Coverage coverage, HotSetForecast.Cut hotSet) {
    return new GateInputs.Observed(true, null, Set.of("bbb"), Set.of("aaa"), coverage, null, null,
        hotSet);
  }

  /** A forecast that kept {@code kept} of {@code tracked} ids for the window 4m. */
  static HotSetForecast.Cut cut(int kept, int tracked) {
    return new HotSetForecast.Cut(IntStream.range(0, kept).mapToObj(i -> "id-" + i).toList(),
        tracked, Duration.ofMinutes(4), 0.01, null);
  }

  static GateInputs.Observed newSchema(Coverage coverage) {
    return seen(Set.of("bbb"), Set.of("aaa"), coverage, null, null);
  }

  static WarmupSpec spec() {
    WarmupSpec spec = new WarmupSpec();
    spec.setMaxWait("10m");
    return spec;
  }

  static Decision decide(RolloutView rollout, WarmupSpec spec, GatePhase previous,
      GateInputs.Observed seen, Duration heldFor) {
    return GateDecision.decide(new GateInputs(rollout, GateStep.resolve(rollout.steps(),
        spec.getGateStep()), GateInputs.Warmup.of(spec), previous, seen, PAUSED.plus(heldFor),
        GRACE));
  }

  /** As {@link #decide(RolloutView, WarmupSpec, GatePhase, GateInputs.Observed, Duration)}, the
   * status recording the gate as holding the canary ({@code RolloutHeld=True}) or not. */
  static Decision decide(RolloutView rollout, GatePhase previous, boolean holding,
      GateInputs.Observed seen) {
    return GateDecision.decide(new GateInputs(rollout, GateStep.resolve(rollout.steps(), null),
        GateInputs.Warmup.of(spec()), previous, holding, seen, PAUSED.plus(Duration.ofMinutes(11)),
        GRACE, null));
  }

  static Decision decide(GateInputs.Observed seen, Duration heldFor) {
    return decide(held(), spec(), null, seen, heldFor);
  }

  @Test
  void noCanaryIsIdle() {
    RolloutView stable = new RolloutView("ns", "app", "uid", "1", STEPS, "s1", "s1", 3, List.of(),
        false);
    Decision d = decide(stable, spec(), null, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Idle);
    assertThat(d.reason()).isEqualTo("NoCanary");
  }

  @Test
  void rolloutWithoutStatusIsIdle() {
    RolloutView fresh = new RolloutView("ns", "app", "uid", "1", STEPS, null, null, null,
        List.of(), false);
    assertThat(decide(fresh, spec(), null, newSchema(null), Duration.ZERO).phase())
        .isEqualTo(GatePhase.Idle);
  }

  @Test
  void finishedCanaryThatBecameStableKeepsItsPhase() {
    RolloutView done = new RolloutView("ns", "app", "uid", "1", STEPS, "c1", "c1", 3, List.of(),
        false);
    Decision d = decide(done, spec(), GatePhase.Promoted, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
  }

  @Test
  void abortedRolloutIsAbortedAndUntouched() {
    Decision d = decide(rollout(1, true, true), spec(), null, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Aborted);
    assertThat(d.reason()).isEqualTo("RolloutAborted");
  }

  @Test
  void rolloutAbortedByTimeoutStaysTimedOut() {
    Decision d = decide(rollout(1, false, true), spec(), GatePhase.TimedOut, newSchema(null),
        Duration.ofMinutes(11));
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.TimedOut);
    assertThat(d.message()).contains("onTimeout Abort");
  }

  @Test
  void rolloutWithoutIndefinitePauseCannotBeHeld() {
    RolloutView noPause = new RolloutView("ns", "app", "uid", "1",
        List.of(new RolloutView.Step(false, false), new RolloutView.Step(true, false)), "c1",
        "s1", 1, List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED)), false);
    Decision d = decide(noPause, spec(), null, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.reason()).isEqualTo("NoGateStep");
    assertThat(d.message()).contains("pause: {}").contains("spec.warmup.gateStep");
  }

  @Test
  void configuredGateStepMustBeAPauseStep() {
    WarmupSpec spec = spec();
    spec.setGateStep(2);
    Decision d = decide(rollout(2, true, false), spec, null, newSchema(null), Duration.ZERO);
    assertThat(d.reason()).isEqualTo("NoGateStep");
    assertThat(d.message()).contains("gateStep 2 is not a pause step");
    spec.setGateStep(7);
    assertThat(decide(rollout(2, true, false), spec, null, newSchema(null), Duration.ZERO)
        .message()).contains("outside the Rollout's 3 canary steps");
  }

  /** Issue 13 item 9: a timed pause ends by itself, so the gate cannot hold there. */
  @Test
  void configuredGateStepMustBeAnIndefinitePause() {
    RolloutView timed = new RolloutView("ns", "app", "uid", "1",
        List.of(new RolloutView.Step(false, false), new RolloutView.Step(true, false)), "c1",
        "s1", 1, List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED)), false);
    WarmupSpec spec = spec();
    spec.setGateStep(1);
    Decision d = decide(timed, spec, null, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.reason()).isEqualTo("NoGateStep");
    assertThat(d.message()).contains("gateStep 1 is a pause with a duration")
        .contains("pause: {}");
  }

  @Test
  void configuredGateStepIsUsed() {
    List<RolloutView.Step> steps = List.of(new RolloutView.Step(true, true),
        new RolloutView.Step(false, false), new RolloutView.Step(true, true));
    RolloutView secondPause = new RolloutView("ns", "app", "uid", "1", steps, "c1", "s1", 2,
        List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED)), false);
    WarmupSpec spec = spec();
    spec.setGateStep(2);
    assertThat(decide(secondPause, spec, null, newSchema(new Coverage(9, 10)), Duration.ZERO))
        .isInstanceOf(Decision.Release.class);
  }

  @Test
  void canaryBeforeTheGateStepIsWaiting() {
    Decision d = decide(rollout(0, false, false), spec(), null, newSchema(null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Waiting);
    assertThat(d.reason()).isEqualTo("BeforeGateStep");
    assertThat(decide(rollout(null, false, false), spec(), null, newSchema(null), Duration.ZERO)
        .reason()).isEqualTo("BeforeGateStep");
  }

  @Test
  void canaryPastTheGateKeepsAFinishedPhase() {
    Decision d = decide(rollout(2, false, false), spec(), GatePhase.Promoted, newSchema(null),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
    assertThat(d.reason()).isEqualTo("PassedGate");
  }

  @Test
  void canaryPromotedByHandPastTheGateIsReported() {
    Decision d = decide(rollout(2, false, false), spec(), GatePhase.Warming, newSchema(null),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.message()).contains("without the gate releasing it");
  }

  /**
   * A canary held by {@code onTimeout: Hold} ({@code TimedOut} while {@code RolloutHeld=True}) is
   * not one the gate is done with: a person promoting it is reported as a promotion by hand.
   */
  @Test
  void canaryHeldByOnTimeoutHoldThenPromotedByHandIsReportedAsPromotedByHand() {
    Decision d = decide(rollout(2, false, false), GatePhase.TimedOut, true, newSchema(null));
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
    assertThat(d.reason()).isEqualTo("PassedGate");
    assertThat(d.message()).contains("without the gate releasing it");

    Decision unpaused = decide(rollout(1, false, false), GatePhase.TimedOut, true, newSchema(null));
    assertThat(unpaused.phase()).isEqualTo(GatePhase.Waiting);
    assertThat(unpaused.reason()).isEqualTo("NotPaused");
    assertThat(unpaused.message()).endsWith("but not paused there yet");
  }

  /** ... and a person aborting it is the person's abort, not onTimeout Abort's. */
  @Test
  void canaryHeldByOnTimeoutHoldThenAbortedByHandIsAborted() {
    Decision d = decide(rollout(1, true, true), GatePhase.TimedOut, true, newSchema(null));
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Aborted);
    assertThat(d.reason()).isEqualTo("RolloutAborted");
    assertThat(d.message()).isEqualTo("canary c1 was aborted");

    Decision byTimeout = decide(rollout(1, true, true), GatePhase.TimedOut, false, newSchema(null));
    assertThat(byTimeout.phase()).as("aborted by onTimeout Abort: no hold recorded")
        .isEqualTo(GatePhase.TimedOut);
    assertThat(byTimeout.message()).contains("onTimeout Abort");
  }

  /**
   * Valkey unreadable keeps the phase of a canary the gate holds (Warming, TimedOut), not the
   * phase of one it finished with before it was retried.
   */
  @Test
  void unreachableValkeyKeepsThePhaseOnlyOfAHeldCanary() {
    GateInputs.Observed down = GateInputs.Observed.unreachable("Connection refused");
    RolloutView retried = rollout(1, true, false);
    assertThat(GateDecision.decide(new GateInputs(retried, GateStep.resolve(STEPS, null),
        GateInputs.Warmup.of(spec()), GatePhase.Warming, true, down, PAUSED.plusSeconds(5), GRACE,
        null)).phase()).isEqualTo(GatePhase.Warming);
    assertThat(GateDecision.decide(new GateInputs(retried, GateStep.resolve(STEPS, null),
        GateInputs.Warmup.of(spec()), GatePhase.TimedOut, false, down, PAUSED.plusSeconds(5), GRACE,
        null)).phase()).as("retried after onTimeout Abort").isEqualTo(GatePhase.Waiting);
  }

  @Test
  void atTheGateStepWithoutPauseConditionIsNotTouched() {
    Decision d = decide(rollout(1, false, false), spec(), null, newSchema(new Coverage(10, 10)),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Waiting);
    assertThat(d.reason()).isEqualTo("NotPaused");
  }

  @Test
  void justReleasedCanaryKeepsItsPhaseUntilTheControllerMovesOn() {
    Decision d = decide(rollout(1, false, false), spec(), GatePhase.Skipped, newSchema(null),
        Duration.ZERO);
    assertThat(d.phase()).isEqualTo(GatePhase.Skipped);
  }

  @Test
  void pauseConditionOfAnotherKindDoesNotCount() {
    RolloutView inconclusive = new RolloutView("ns", "app", "uid", "1", STEPS, "c1", "s1", 1,
        List.of(new RolloutView.PauseCondition("InconclusiveAnalysisRun", PAUSED)), false);
    assertThat(decide(inconclusive, spec(), null, newSchema(new Coverage(10, 10)), Duration.ZERO))
        .isInstanceOf(Decision.Pass.class);
  }

  @Test
  void unreachableValkeyHolds() {
    Decision d = decide(GateInputs.Observed.unreachable("Connection refused"),
        Duration.ofMinutes(9));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("L2Unreachable");
    assertThat(d.message()).contains("Connection refused");
  }

  @Test
  void noAgentWithinGraceIsWaitingForAgents() {
    Decision d = decide(seen(Set.of(), Set.of("aaa"), null, null, null), Duration.ofSeconds(5));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Waiting);
    assertThat(d.reason()).isEqualTo("WaitingForAgents");
  }

  @Test
  void noAgentAfterGraceIsAgentNotInjected() {
    WarmupSpec spec = spec();
    spec.setOnTimeout(TimeoutAction.Promote);
    Decision d = decide(held(), spec, null, seen(Set.of(), Set.of("aaa"), null, null, null),
        Duration.ofMinutes(9));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("AgentNotInjected");
    assertThat(d.message()).contains("c1").contains("warmgate.io/cache-policy");
  }

  @Test
  void severalCanarySchemasHold() {
    Decision d = decide(seen(Set.of("bbb", "ccc"), Set.of("aaa"), null, null, null),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("AmbiguousSchemaHash");
    assertThat(d.message()).contains("[bbb, ccc]");
  }

  @Test
  void sameSchemaAsStableIsSkipped() {
    Decision d = decide(seen(Set.of("aaa"), Set.of("aaa"), new Coverage(0, 10), null, null),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Skipped);
    assertThat(d.reason()).isEqualTo("SchemaUnchanged");
    assertThat(d.message()).isEqualTo("skipped: schema unchanged (aaa)");
  }

  @Test
  void sameSchemaWithSkipDisabledMustWarm() {
    WarmupSpec spec = spec();
    spec.setSkipWhenSchemaUnchanged(false);
    Decision d = decide(held(), spec, null,
        seen(Set.of("aaa"), Set.of("aaa"), new Coverage(1, 10), null, null), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("Warming");
  }

  @Test
  void unknownStableSchemaIsNeverSkipped() {
    Decision d = decide(seen(Set.of("aaa"), Set.of(), new Coverage(1, 10), null, null),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
  }

  @Test
  void coverageBelowMinimumHoldsWithCounts() {
    Decision d = decide(newSchema(new Coverage(4812, 20000)), Duration.ofSeconds(5));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Warming);
    assertThat(d.message()).startsWith("held: warming 4,812/20,000 keys")
        .contains("coverage 24.0% of 80% needed");
  }

  @Test
  void coverageAtMinimumReleases() {
    Decision d = decide(newSchema(new Coverage(8, 10)), Duration.ofSeconds(38));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
    assertThat(d.reason()).isEqualTo("CoverageReached");
    assertThat(d.message()).isEqualTo(
        "released after 38 s: coverage 80.0% (8/10 keys) of 80% needed");
  }

  /** Issue 28 item 5: the gate never approves what another pause waits for. */
  @Test
  void aWarmCanaryAlsoPausedByAnInconclusiveAnalysisStaysHeld() {
    RolloutView twoPauses = new RolloutView("ns", "app", "uid", "7", STEPS, "c1", "s1", 1,
        List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED),
            new RolloutView.PauseCondition("InconclusiveAnalysisRun", PAUSED)), false);

    Decision d = decide(twoPauses, spec(), null, newSchema(new Coverage(8, 10)),
        Duration.ofSeconds(38));

    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("PausedForAnotherReason");
    assertThat(d.message()).contains("released after 38 s").contains("InconclusiveAnalysisRun")
        .contains("kubectl argo rollouts promote");
  }

  @Test
  void aTimedOutCanaryAlsoPausedForAnotherReasonIsStillAbortedByOnTimeoutAbort() {
    RolloutView twoPauses = new RolloutView("ns", "app", "uid", "7", STEPS, "c1", "s1", 1,
        List.of(new RolloutView.PauseCondition("CanaryPauseStep", PAUSED),
            new RolloutView.PauseCondition("InconclusiveAnalysisRun", PAUSED)), false);
    WarmupSpec abort = spec();
    abort.setOnTimeout(io.warmgate.operator.model.TimeoutAction.Abort);

    Decision d = decide(twoPauses, abort, null, newSchema(new Coverage(1, 10)),
        Duration.ofMinutes(11));

    assertThat(d).isInstanceOf(Decision.Abort.class);
  }

  @Test
  void coverageJustBelowMinimumHolds() {
    assertThat(decide(newSchema(new Coverage(7999, 10000)), Duration.ZERO))
        .isInstanceOf(Decision.Hold.class);
  }

  @Test
  void hitRatioMustAlsoBeReachedWhenSet() {
    WarmupSpec spec = spec();
    spec.setMinHitRatio(90);
    spec.setHitRatioWindow("1m");
    Decision low = decide(held(), spec, null,
        seen(Set.of("bbb"), Set.of("aaa"), new Coverage(10, 10), 0.5, null), Duration.ZERO);
    assertThat(low).isInstanceOf(Decision.Hold.class);
    assertThat(low.message()).contains("hit ratio 50.0% of 90% needed");
    Decision unknown = decide(held(), spec, null,
        seen(Set.of("bbb"), Set.of("aaa"), new Coverage(10, 10), null, null), Duration.ZERO);
    assertThat(unknown).isInstanceOf(Decision.Hold.class);
    assertThat(unknown.message()).contains("hit ratio unknown");
    Decision high = decide(held(), spec, null,
        seen(Set.of("bbb"), Set.of("aaa"), new Coverage(10, 10), 0.95, null), Duration.ZERO);
    assertThat(high).isInstanceOf(Decision.Release.class);
  }

  @Test
  void emptyHotSetHolds() {
    Decision d = decide(newSchema(new Coverage(0, 0)), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("HotSetEmpty");
  }

  @Test
  void zeroMinCoverageReleasesEvenWithEmptyHotSet() {
    WarmupSpec spec = spec();
    spec.setMinCoverage(0);
    assertThat(decide(held(), spec, null, newSchema(new Coverage(0, 0)), Duration.ZERO))
        .isInstanceOf(Decision.Release.class);
  }

  @Test
  void preloadWithoutJobOpensOneForTheHotSet() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    spec.setHotSetSize(20000);
    spec.setPreloadRate(300);
    Decision d = decide(held(), spec, null, newSchema(new Coverage(0, 20000)), Duration.ZERO);
    assertThat(d).isEqualTo(new Decision.OpenWarmJob("bbb", 20000, 300));
  }

  @Test
  void preloadOpensTheJobForTheForecastCutOnly() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    spec.setPreloadRate(300);
    Decision d = decide(held(), spec, null, forecast(new Coverage(0, 3), cut(3, 10)),
        Duration.ZERO);
    assertThat(d).isEqualTo(new Decision.OpenWarmJob("bbb", 3, 300));
  }

  @Test
  void warmingAndReleaseMessagesShowTheForecastCut() {
    Decision warming = decide(forecast(new Coverage(1, 2345), cut(2345, 10000)), Duration.ZERO);
    assertThat(warming.message()).isEqualTo("held: warming 1/2,345 keys (coverage 0.0% of 80% "
        + "needed); hot set: 2,345 of 10,000 tracked ids expected to be read within l2Ttl 4m");
    Decision released = decide(forecast(new Coverage(2345, 2345), cut(2345, 10000)),
        Duration.ofSeconds(38));
    assertThat(released.message()).isEqualTo("released after 38 s: coverage 100.0% (2,345/2,345 "
        + "keys) of 80% needed; hot set: 2,345 of 10,000 tracked ids expected to be read within l2Ttl 4m");
  }

  @Test
  void aRunningJobShowsHowItsIdsWereChosen() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    Decision d = decide(held(), spec, null, seen(Set.of("bbb"), Set.of("aaa"),
        new Coverage(10, 100), null, new WarmJob("Running", 100, 12, 1, null,
            "hot set: 100 of 400 tracked ids expected to be read within l2Ttl 4m")), Duration.ZERO);
    assertThat(d.message()).contains("; hot set: 100 of 400 tracked ids expected to be read "
        + "within l2Ttl 4m; warm job Running 12/100 loaded");
  }

  @Test
  void aForecastExpectingNoReadsHoldsAsAnEmptyHotSetAndOpensNoJob() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    Decision d = decide(held(), spec, null, forecast(new Coverage(0, 0), cut(0, 1234)),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("HotSetEmpty");
    assertThat(d.message()).startsWith("held: the hot set is empty: none of the 1,234 tracked ids "
        + "is expected to be read within l2Ttl 4m");
  }

  @Test
  void preloadWithJobHoldsAndReportsProgress() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    Decision d = decide(held(), spec, null, seen(Set.of("bbb"), Set.of("aaa"),
        new Coverage(10, 100), null, new WarmJob("Running", 100, 12, 1, null, null)),
        Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.message()).contains("warm job Running 12/100 loaded, 1 errors");
  }

  @Test
  void preloadDoesNotOpenAJobForAnEmptyHotSet() {
    WarmupSpec spec = spec();
    spec.setMode(WarmupMode.Preload);
    assertThat(decide(held(), spec, null, newSchema(new Coverage(0, 0)), Duration.ZERO).reason())
        .isEqualTo("HotSetEmpty");
  }

  @Test
  void warmCanaryIsReleasedEvenPastMaxWait() {
    WarmupSpec spec = spec();
    spec.setOnTimeout(TimeoutAction.Abort);
    Decision d = decide(held(), spec, null, newSchema(new Coverage(10, 10)),
        Duration.ofMinutes(20));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
  }

  @ParameterizedTest
  @EnumSource(TimeoutAction.class)
  void maxWaitAppliesOnTimeout(TimeoutAction action) {
    WarmupSpec spec = spec();
    spec.setOnTimeout(action);
    Decision before = decide(held(), spec, null, newSchema(new Coverage(1, 10)),
        Duration.ofMinutes(10).minusSeconds(1));
    assertThat(before).isInstanceOf(Decision.Hold.class);
    assertThat(before.phase()).isEqualTo(GatePhase.Warming);

    Decision after = decide(held(), spec, null, newSchema(new Coverage(1, 10)),
        Duration.ofMinutes(10));
    assertThat(after.phase()).isEqualTo(GatePhase.TimedOut);
    assertThat(after.reason()).isEqualTo("TimedOut");
    assertThat(after.message()).contains("onTimeout " + action).contains("10m");
    switch (action) {
      case Hold -> assertThat(after).isInstanceOf(Decision.Hold.class);
      case Promote -> assertThat(after).isInstanceOf(Decision.Release.class);
      case Abort -> assertThat(after).isInstanceOf(Decision.Abort.class);
    }
  }

  static Decision withPods(CanaryPods pods, Duration heldFor) {
    return GateDecision.decide(new GateInputs(held(), GateStep.resolve(STEPS, null),
        GateInputs.Warmup.of(spec()), null, seen(Set.of(), Set.of("aaa"), null, null, null),
        PAUSED.plus(heldFor), GRACE, pods));
  }

  /** Issue 13 item 11: pods without the variables are not injected, said at once. */
  @Test
  void canaryPodsWithoutTheVariablesAreAgentNotInjectedAtOnce() {
    Decision d = withPods(new CanaryPods(2, 0, 0), Duration.ofSeconds(5));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("AgentNotInjected");
    assertThat(d.message()).contains("none of the 2 canary pods c1 has the WARMGATE_* variables");
  }

  @Test
  void injectedPodsNotReadyAfterTheGraceAreStillWaitingForAgents() {
    Decision d = withPods(new CanaryPods(2, 2, 0), Duration.ofSeconds(60));
    assertThat(d.reason()).isEqualTo("WaitingForAgents");
    assertThat(d.message()).contains("2 of 2 pods injected, none Ready yet");
  }

  @Test
  void injectedReadyPodsWithoutAgentAfterTheGraceAreAgentNotRegistered() {
    assertThat(withPods(new CanaryPods(2, 2, 2), Duration.ofSeconds(20)).reason())
        .isEqualTo("WaitingForAgents");
    Decision d = withPods(new CanaryPods(2, 2, 2), Duration.ofSeconds(60));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("AgentNotRegistered");
    assertThat(d.message()).contains("2 of 2 canary pods c1 are injected and Ready")
        .contains("Valkey errors");
  }

  @Test
  void noCanaryPodAfterTheGraceIsNoCanaryPods() {
    assertThat(withPods(new CanaryPods(0, 0, 0), Duration.ofSeconds(60)).reason())
        .isEqualTo("NoCanaryPods");
  }

  @Test
  void failingAgentsAlsoEndAtMaxWait() {
    Decision d = withPods(new CanaryPods(2, 2, 2), Duration.ofMinutes(10));
    assertThat(d.phase()).isEqualTo(GatePhase.TimedOut);
    assertThat(d.message()).contains("held by onTimeout Hold: 2 of 2 canary pods c1 are injected");
  }

  /** Issue 13 item 12: a sampled coverage releases only when its 95% lower bound reaches it. */
  @Test
  void sampledCoverageReleasesOnlyWhenItsLowerBoundReachesTheMinimum() {
    Decision near = decide(newSchema(new Coverage(830, 50_000, 1024)), Duration.ofSeconds(5));
    assertThat(near).as("81%% of the sample, lower bound under 80%%")
        .isInstanceOf(Decision.Hold.class);
    assertThat(near.message()).contains("~40,527/50,000 keys (830 of 1,024 sampled ids present)");
    Decision above = decide(newSchema(new Coverage(860, 50_000, 1024)), Duration.ofSeconds(5));
    assertThat(above).isInstanceOf(Decision.Release.class);
    assertThat(above.message()).contains("coverage 83.9% (~41,992/50,000 keys (860 of 1,024 "
        + "sampled ids present)) of 80% needed");
    assertThat(decide(newSchema(new Coverage(8, 10, 10)), Duration.ZERO))
        .as("every id checked: exact").isInstanceOf(Decision.Release.class);
  }

  /** Issue 13 item 3: L2 unreachable, no agent, several schema hashes held past maxWait. */
  @ParameterizedTest
  @EnumSource(TimeoutAction.class)
  void everyUnknownStateEndsAtMaxWaitWithOnTimeout(TimeoutAction action) {
    WarmupSpec spec = spec();
    spec.setOnTimeout(action);
    Map<String, GateInputs.Observed> unknown = Map.of(
        "L2Unreachable", GateInputs.Observed.unreachable("Connection refused"),
        "AgentNotInjected", seen(Set.of(), Set.of("aaa"), null, null, null),
        "AmbiguousSchemaHash", seen(Set.of("bbb", "ccc"), Set.of("aaa"), null, null, null));
    unknown.forEach((reason, seen) -> {
      Decision before = decide(held(), spec, null, seen, Duration.ofMinutes(10).minusSeconds(1));
      assertThat(before).as(reason).isInstanceOf(Decision.Hold.class);
      assertThat(before.reason()).isEqualTo(reason);

      Decision after = decide(held(), spec, null, seen, Duration.ofMinutes(10));
      assertThat(after.phase()).as(reason).isEqualTo(GatePhase.TimedOut);
      assertThat(after.reason()).isEqualTo("TimedOut");
      assertThat(after.message()).contains("onTimeout " + action).contains("10m")
          .contains("coverage unknown");
      switch (action) {
        case Hold -> assertThat(after).isInstanceOf(Decision.Hold.class);
        case Promote -> assertThat(after).isInstanceOf(Decision.Release.class);
        case Abort -> assertThat(after).isInstanceOf(Decision.Abort.class);
      }
    });
    assertThat(decide(held(), spec, null, GateInputs.Observed.unreachable("Connection refused"),
        Duration.ofMinutes(10)).message()).contains("Valkey cannot be read (Connection refused)");
  }

  @Test
  void noAgentPastAShortMaxWaitStillWaitsOutTheGrace() {
    WarmupSpec spec = spec();
    spec.setMaxWait("10s");
    spec.setOnTimeout(TimeoutAction.Promote);
    GateInputs.Observed none = seen(Set.of(), Set.of("aaa"), null, null, null);
    assertThat(decide(held(), spec, null, none, Duration.ofSeconds(20)).reason())
        .isEqualTo("WaitingForAgents");
    assertThat(decide(held(), spec, null, none, Duration.ofSeconds(30)))
        .isInstanceOf(Decision.Release.class);
  }

  @Test
  void pauseStartInTheFutureCountsAsJustStarted() {
    Decision d = decide(seen(Set.of(), Set.of("aaa"), null, null, null), Duration.ofSeconds(-5));
    assertThat(d.reason()).isEqualTo("WaitingForAgents");
  }

  @Test
  void durationsReadLikeKubectl() {
    assertThat(GateDecision.seconds(Duration.ofSeconds(38))).isEqualTo("38 s");
    assertThat(GateDecision.seconds(Duration.ofSeconds(605))).isEqualTo("10m 5s");
    assertThat(GateDecision.seconds(Duration.ofMinutes(10))).isEqualTo("10m");
  }

  // warmup.originBudget: what stays of the steady origin rate + forecast peak must fit under it.

  static OriginForecast.Forecast forecast(double steady, double peak, double tail) {
    return forecast(steady, 0, peak, tail);
  }

  static OriginForecast.Forecast forecast(double steady, double leaving, double peak,
      double tail) {
    return new OriginForecast.Forecast(steady, leaving, peak / 2, peak, tail,
        Duration.ofSeconds(40), peak * 10, 0.75, List.of(new OriginForecast.HotId("id-7", 12)),
        null);
  }

  static GateInputs.Observed budgeted(Coverage coverage, OriginForecast.Forecast forecast) {
    return new GateInputs.Observed(true, null, Set.of("bbb"), Set.of("aaa"), coverage, null, null,
        null, forecast);
  }

  static WarmupSpec budget(int budget, int minCoverage) {
    WarmupSpec spec = spec();
    spec.setOriginBudget(budget);
    spec.setMinCoverage(minCoverage);
    return spec;
  }

  @Test
  void budgetAloneReleasesOnceSteadyPlusPeakFitsUnderIt() {
    Decision d = decide(held(), budget(200, 0), null,
        budgeted(new Coverage(10, 100), forecast(50, 100, 5)), Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Promoted);
    assertThat(d.reason()).isEqualTo("WithinOriginBudget");
    assertThat(d.message()).isEqualTo("released after 20 s: coverage 10.0% (10/100 keys) of 0% "
        + "needed, origin 50 now + 100 peak = 150 of 200 reads/s budget");
  }

  @Test
  void theStableKeySpacesReadsEndWithTheReleaseAndLeaveRoomUnderTheBudget() {
    // 800 now, of which the stable key space costs 500: after the release 300 + 600 = 900.
    Decision d = decide(held(), budget(1000, 0), null,
        budgeted(new Coverage(10, 100), forecast(800, 500, 600, 5)), Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.message()).contains("origin 800 now − 500 ending with the replaced pods + 600 "
        + "peak = 900 of 1,000 reads/s budget");
    assertThat(decide(held(), budget(1000, 0), null,
        budgeted(new Coverage(10, 100), forecast(800, 0, 600, 5)), Duration.ofSeconds(20)))
        .isInstanceOf(Decision.Hold.class);
  }

  @Test
  void aReleaseExactlyAtTheBudgetFits() {
    assertThat(decide(held(), budget(150, 0), null,
        budgeted(new Coverage(0, 100), forecast(50, 100, 0)), Duration.ZERO))
        .isInstanceOf(Decision.Release.class);
  }

  @Test
  void aReleaseOverTheBudgetIsHeldWarmingWithTheFigures() {
    Decision d = decide(held(), budget(120, 0), null,
        budgeted(new Coverage(10, 100), forecast(50, 100, 5)), Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Warming);
    assertThat(d.reason()).isEqualTo("Warming");
    assertThat(d.message()).isEqualTo("held: warming 10/100 keys (coverage 10.0% of 0% needed, "
        + "origin 50 now + 100 peak = 150 of 120 reads/s budget)");
  }

  @Test
  void budgetWithMinCoverageNeedsBoth() {
    OriginForecast.Forecast fits = forecast(50, 100, 5);
    OriginForecast.Forecast over = forecast(50, 400, 5);
    assertThat(decide(held(), budget(200, 80), null, budgeted(new Coverage(50, 100), fits),
        Duration.ZERO)).isInstanceOf(Decision.Hold.class);
    assertThat(decide(held(), budget(200, 80), null, budgeted(new Coverage(90, 100), over),
        Duration.ZERO)).isInstanceOf(Decision.Hold.class);
    Decision both = decide(held(), budget(200, 80), null, budgeted(new Coverage(90, 100), fits),
        Duration.ZERO);
    assertThat(both).isInstanceOf(Decision.Release.class);
    assertThat(both.reason()).isEqualTo("WithinOriginBudget");
  }

  @Test
  void withoutABudgetTheForecastDoesNotHold() {
    Decision d = decide(held(), spec(), null,
        budgeted(new Coverage(90, 100), forecast(50, 1e6, 5)), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.reason()).isEqualTo("CoverageReached");
  }

  @Test
  void aBudgetBelowTheSteadyRateCannotWarmNamingBothFigures() {
    Decision d = decide(held(), budget(2000, 0), null,
        budgeted(new Coverage(100, 100), forecast(2500, 0, 0)), Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo("CannotWarm");
    assertThat(d.message()).isEqualTo("held: warmup.originBudget 2,000 reads/s is below the "
        + "steady origin rate 2,500 reads/s, so no release can fit under it; raise "
        + "warmup.originBudget above 2,500 or remove it");
  }

  @Test
  void cannotWarmPastMaxWaitAppliesOnTimeout() {
    WarmupSpec spec = budget(2000, 0);
    spec.setOnTimeout(TimeoutAction.Promote);
    Decision d = decide(held(), spec, null,
        budgeted(new Coverage(100, 100), forecast(2500, 0, 0)), Duration.ofMinutes(10));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.phase()).isEqualTo(GatePhase.TimedOut);
    assertThat(d.message()).startsWith("released by onTimeout Promote: warmup.originBudget 2,000 "
        + "reads/s is below the steady origin rate 2,500 reads/s");
  }

  @Test
  void aBudgetWithoutAForecastHoldsAndSaysWhy() {
    Decision unknown = decide(held(), budget(200, 0), null, budgeted(new Coverage(100, 100),
        OriginForecast.Forecast.unknown("the hot set has no request rates (T:hot:meta is "
            + "missing)")), Duration.ZERO);
    assertThat(unknown).isInstanceOf(Decision.Hold.class);
    assertThat(unknown.reason()).isEqualTo("ForecastUnknown");
    assertThat(unknown.message()).contains("there is none: the hot set has no request rates");
    Decision none = decide(held(), budget(200, 0), null, budgeted(new Coverage(100, 100), null),
        Duration.ZERO);
    assertThat(none.reason()).isEqualTo("ForecastUnknown");
  }

  @Test
  void aTailThatAloneExceedsTheBudgetSaysToRaiseHotSetSize() {
    Decision d = decide(held(), budget(200, 0), null,
        budgeted(new Coverage(10, 100), forecast(50, 300, 180)), Duration.ZERO);
    assertThat(d.reason()).isEqualTo("Warming");
    assertThat(d.message()).endsWith("; ids outside the hot set alone add 180 reads/s, which "
        + "warming the hot set does not lower: raise warmup.hotSetSize or warmup.originBudget");
  }

  @Test
  void aBudgetedPreloadStillOpensItsWarmJob() {
    WarmupSpec spec = budget(200, 0);
    spec.setMode(WarmupMode.Preload);
    Decision d = decide(held(), spec, null,
        budgeted(new Coverage(0, 100), forecast(50, 300, 5)), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.OpenWarmJob.class);
  }
}
