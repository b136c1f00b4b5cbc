package io.warmgate.operator.readiness;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.warmgate.operator.gate.Decision;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.revision.NewPods;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodWarmthTest {

  static final String NEW = "n3w";
  static final String OLD = "01d";
  static final NewPods RELEASE = new NewPods("shop", "Deployment shop/app", NEW, OLD, null,
      NewPods.DEPLOYMENT_LABEL, false);
  static final NewPods SCALE_OUT = new NewPods("shop", "Deployment shop/app", NEW, null, null,
      NewPods.DEPLOYMENT_LABEL, false);

  static WarmVerdict warming(NewPods pods) {
    return new WarmVerdict(false, pods, new Decision.Hold(GatePhase.Warming, "Warming",
        "held: coverage 10% < 80%"), null, 80, null, "bbb", "aaa", null);
  }

  static WarmVerdict released(NewPods pods, GatePhase phase, String reason) {
    return new WarmVerdict(true, pods, new Decision.Release(phase, reason, "released"), null, 80,
        null, "bbb", "aaa", null);
  }

  static Pod pod(String hash, boolean gated, String condition, String reason) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withName("app-" + hash)
        .addToLabels(NewPods.DEPLOYMENT_LABEL, hash).endMetadata().withNewSpec().endSpec();
    if (gated) {
      pod.editSpec().addNewReadinessGate().withConditionType(PodInjector.READINESS_GATE)
          .endReadinessGate().endSpec();
    }
    if (condition != null) {
      pod.withNewStatus().addNewCondition().withType(PodInjector.READINESS_GATE)
          .withStatus(condition).withReason(reason).endCondition().endStatus();
    }
    return pod.build();
  }

  static Optional<String> written(Pod pod, WarmVerdict verdict) {
    return PodWarmth.of(pod, verdict).map(w -> w.status() + " " + w.reason());
  }

  @Test
  void newPodOfASchemaChangingReleaseWaitsWhileWarming() {
    assertThat(written(pod(NEW, true, null, null), warming(RELEASE))).hasValue("False Warming");
  }

  @Test
  void waitingPodIsNotWrittenAgainForTheSameReason() {
    assertThat(written(pod(NEW, true, "False", "Warming"), warming(RELEASE))).isEmpty();
  }

  @Test
  void newPodIsLetInOnceTheVerdictReleasesIt() {
    assertThat(written(pod(NEW, true, "False", "Warming"),
        released(RELEASE, GatePhase.Promoted, "CoverageReached")))
        .hasValue("True CoverageReached");
  }

  @Test
  void onTimeoutPromoteLetsTheNewPodInAnyway() {
    assertThat(written(pod(NEW, true, null, null),
        released(RELEASE, GatePhase.TimedOut, "TimedOut"))).hasValue("True TimedOut");
  }

  @Test
  void podOfTheReplacedRevisionIsLetInAtOnce() {
    assertThat(written(pod(OLD, true, null, null), warming(RELEASE)))
        .hasValue("True " + PodWarmth.STABLE_REVISION);
  }

  @Test
  void scaleOutPodIsLetInAtOnce() {
    assertThat(written(pod(NEW, true, null, null), warming(SCALE_OUT)))
        .hasValue("True " + PodWarmth.NO_RELEASE);
  }

  @Test
  void trueStaysTrueWhateverALaterPassSees() {
    Pod restarted = pod(NEW, true, "True", "CoverageReached");
    assertThat(written(restarted, warming(RELEASE))).isEmpty();
    assertThat(PodWarmth.waiting(restarted)).isFalse();
  }

  @Test
  void podWithoutTheReadinessGateIsLeftAlone() {
    Pod legacy = pod(NEW, false, null, null);
    assertThat(written(legacy, released(RELEASE, GatePhase.Promoted, "CoverageReached")))
        .isEmpty();
    assertThat(PodWarmth.waiting(legacy)).isFalse();
  }

  @Test
  void podOfARevisionThePassDidNotSeeWaitsForTheNextPass() {
    assertThat(written(pod("n3wer", true, null, null),
        released(RELEASE, GatePhase.Promoted, "CoverageReached"))).isEmpty();
    assertThat(PodWarmth.waiting(pod("n3wer", true, null, null))).isTrue();
  }

  @Test
  void podBeingDeletedIsLeftAlone() {
    Pod deleting = new PodBuilder(pod(NEW, true, null, null)).editMetadata()
        .withDeletionTimestamp("2026-01-01T00:00:00Z").endMetadata().build();
    assertThat(written(deleting, warming(RELEASE))).isEmpty();
  }
}
