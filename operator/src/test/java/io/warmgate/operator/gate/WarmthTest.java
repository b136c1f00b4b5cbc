package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.revision.NewPods;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link GateDecision#warmth}: the pause style's warm criterion for new pods no pause step holds
 * (an Argo analysis, Flagger), decided on a view of the new pods without steps.
 */
class WarmthTest {

  static final Instant SINCE = Instant.parse("2026-01-02T03:00:00Z");

  static NewPods pods(String newHash, String stableHash) {
    return new NewPods("ns", "Deployment ns/app", newHash, stableHash, SINCE,
        NewPods.DEPLOYMENT_LABEL, false);
  }

  static Decision warmth(NewPods pods, WarmupSpec spec, GateInputs.Observed seen,
      Duration after) {
    RolloutView view = RolloutView.ofNewPods(pods, "app");
    GateInputs in = new GateInputs(view, GateStep.resolve(List.of(), null),
        GateInputs.Warmup.of(spec), null, seen, SINCE.plus(after), Duration.ofSeconds(30));
    return GateDecision.warmth(in, pods.since());
  }

  static WarmupSpec spec() {
    WarmupSpec spec = new WarmupSpec();
    spec.setMaxWait("10m");
    spec.setMinCoverage(80);
    return spec;
  }

  static GateInputs.Observed seen(Coverage coverage) {
    return new GateInputs.Observed(true, null, Set.of("bbb"), Set.of("aaa"), coverage, null, null,
        null);
  }

  @Test
  void newPodsWithCoverageReachedAreWarm() {
    Decision d = warmth(pods("c1", "s1"), spec(), seen(new Coverage(80, 100)),
        Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.reason()).isEqualTo(GateReasons.COVERAGE_REACHED);
  }

  @Test
  void newPodsBelowCoverageAreWarming() {
    Decision d = warmth(pods("c1", "s1"), spec(), seen(new Coverage(79, 100)),
        Duration.ofSeconds(20));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo(GateReasons.WARMING);
    assertThat(d.message()).contains("79.0% of 80% needed");
  }

  @Test
  void sameSchemaIsWarmAtOnce() {
    GateInputs.Observed same = new GateInputs.Observed(true, null, Set.of("aaa"), Set.of("aaa"),
        null, null, null, null);
    Decision d = warmth(pods("c1", "s1"), spec(), same, Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Release.class);
    assertThat(d.reason()).isEqualTo(GateReasons.SCHEMA_UNCHANGED);
  }

  @Test
  void noNewPodsIsAPassNotWarm() {
    Decision d = warmth(pods("s1", "s1"), spec(), seen(new Coverage(100, 100)), Duration.ZERO);
    assertThat(d).isInstanceOf(Decision.Pass.class);
    assertThat(d.phase()).isEqualTo(GatePhase.Idle);
    assertThat(warmth(pods("c1", null), spec(), seen(null), Duration.ZERO))
        .isInstanceOf(Decision.Pass.class);
  }

  @Test
  void maxWaitCountsFromWhenTheNewPodsAppeared() {
    WarmupSpec promote = spec();
    promote.setOnTimeout(TimeoutAction.Promote);
    Decision before = warmth(pods("c1", "s1"), promote, seen(new Coverage(1, 100)),
        Duration.ofMinutes(9));
    Decision after = warmth(pods("c1", "s1"), promote, seen(new Coverage(1, 100)),
        Duration.ofMinutes(10));
    assertThat(before).isInstanceOf(Decision.Hold.class);
    assertThat(after).isInstanceOf(Decision.Release.class);
    assertThat(after.phase()).isEqualTo(GatePhase.TimedOut);
  }

  @Test
  void abortOnTimeoutIsNotWarm() {
    WarmupSpec abort = spec();
    abort.setOnTimeout(TimeoutAction.Abort);
    Decision d = warmth(pods("c1", "s1"), abort, seen(new Coverage(1, 100)),
        Duration.ofMinutes(11));
    assertThat(d).isInstanceOf(Decision.Abort.class);
  }

  @Test
  void unreadableValkeyIsNotWarm() {
    Decision d = warmth(pods("c1", "s1"), spec(),
        GateInputs.Observed.unreachable("connection refused"), Duration.ofSeconds(5));
    assertThat(d).isInstanceOf(Decision.Hold.class);
    assertThat(d.reason()).isEqualTo(GateReasons.L2_UNREACHABLE);
  }
}
