package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Reading the Rollout fields the gate needs, as the Argo controller writes them. */
class RolloutViewTest {

  static GenericKubernetesResource yaml(String text) {
    return Serialization.unmarshal(text, GenericKubernetesResource.class);
  }

  @Test
  void readsStepsAndStatusOfAHeldCanary() {
    RolloutView view = RolloutView.of(yaml("""
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata: {name: app, namespace: shop, uid: u-1, resourceVersion: "42"}
        spec:
          strategy:
            canary:
              steps:
              - setWeight: 20
              - pause: {}
              - pause: {duration: 30s}
              - pause: {duration: 0}
        status:
          currentPodHash: 7d9f8b
          stableRS: 5c6d7e
          currentStepIndex: 1
          controllerPause: true
          pauseConditions:
          - reason: CanaryPauseStep
            startTime: "2026-01-02T03:04:05Z"
        """));

    assertThat(view.id()).isEqualTo("shop/app");
    assertThat(view.uid()).isEqualTo("u-1");
    assertThat(view.resourceVersion()).isEqualTo("42");
    assertThat(view.steps()).containsExactly(new RolloutView.Step(false, false),
        new RolloutView.Step(true, true), new RolloutView.Step(true, false),
        new RolloutView.Step(true, false));
    assertThat(view.currentPodHash()).isEqualTo("7d9f8b");
    assertThat(view.stableRs()).isEqualTo("5c6d7e");
    assertThat(view.currentStepIndex()).isEqualTo(1);
    assertThat(view.canaryInProgress()).isTrue();
    assertThat(view.abort()).isFalse();
    assertThat(view.canaryPauseStart()).contains(Instant.parse("2026-01-02T03:04:05Z"));
    assertThat(GateStep.resolve(view.steps(), null).index()).isEqualTo(1);
  }

  @Test
  void missingOrMalformedFieldsReadAsAbsent() {
    RolloutView view = RolloutView.of(yaml("""
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata: {name: app, namespace: shop}
        spec: {strategy: {blueGreen: {activeService: x}}}
        status:
          currentStepIndex: "one"
          abort: true
          pauseConditions:
          - reason: CanaryPauseStep
            startTime: yesterday
        """));

    assertThat(view.steps()).isEmpty();
    assertThat(view.currentPodHash()).isNull();
    assertThat(view.currentStepIndex()).isNull();
    assertThat(view.canaryInProgress()).isFalse();
    assertThat(view.abort()).isTrue();
    assertThat(view.canaryPauseStart()).isEmpty();
  }

  @Test
  void rolloutWithoutStatusIsNotInProgress() {
    RolloutView view = RolloutView.of(yaml("""
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata: {name: app, namespace: shop}
        """));
    assertThat(view.canaryInProgress()).isFalse();
    assertThat(view.pauseConditions()).isEmpty();
  }
}
