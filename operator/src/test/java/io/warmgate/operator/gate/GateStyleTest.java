package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

/** Which gate style a Rollout is in: pause step, analysis, or none. */
class GateStyleTest {

  static GenericKubernetesResource rollout(String strategy) {
    return Serialization.unmarshal("""
        apiVersion: argoproj.io/v1alpha1
        kind: Rollout
        metadata: {name: app, namespace: ns}
        spec:
          strategy:
        """ + strategy.indent(4), GenericKubernetesResource.class);
  }

  static GateStyle style(GenericKubernetesResource rollout, Integer gateStep) {
    return GateStyle.of(rollout, GateStep.resolve(RolloutView.of(rollout).steps(), gateStep),
        gateStep != null);
  }

  @Test
  void canaryWithAnIndefinitePauseIsPauseStyleEvenWithAnalysis() {
    assertThat(style(rollout("""
        canary:
          steps:
          - setWeight: 10
          - pause: {}
          - analysis: {templates: [{templateName: warm}]}
        """), null)).isEqualTo(GateStyle.PAUSE);
  }

  @Test
  void canaryWithAnAnalysisStepAndNoPauseIsAnalysisStyle() {
    assertThat(style(rollout("""
        canary:
          steps:
          - setWeight: 10
          - analysis: {templates: [{templateName: warm}]}
        """), null)).isEqualTo(GateStyle.ANALYSIS);
  }

  @Test
  void blueGreenWithPrePromotionAnalysisIsAnalysisStyle() {
    assertThat(style(rollout("""
        blueGreen:
          activeService: app
          prePromotionAnalysis: {templates: [{templateName: warm}]}
        """), null)).isEqualTo(GateStyle.ANALYSIS);
  }

  @Test
  void blueGreenWithoutAnalysisCannotBeGated() {
    GenericKubernetesResource rollout = rollout("""
        blueGreen:
          activeService: app
        """);
    assertThat(style(rollout, null)).isEqualTo(GateStyle.NONE);
    assertThat(GateStyle.noGate(GateStep.resolve(RolloutView.of(rollout).steps(), null)))
        .contains("add '- pause: {}'").contains("prePromotionAnalysis");
  }

  @Test
  void aWrongGateStepIsNeverTakenForTheAnalysisStyle() {
    assertThat(style(rollout("""
        canary:
          steps:
          - setWeight: 10
          - analysis: {templates: [{templateName: warm}]}
        """), 0)).isEqualTo(GateStyle.NONE);
  }
}
