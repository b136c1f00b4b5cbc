package io.warmgate.bench.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {

  private static final String METRICS = """
      # HELP operator_sdk_reconciliations_started_total
      # TYPE operator_sdk_reconciliations_started_total counter
      operator_sdk_reconciliations_started_total{controller="cachepolicy"} 12.0
      operator_sdk_reconciliations_started_total{controller="other"} 3.0
      process_uptime_seconds 41.5

      """;

  @Test
  void sumsTheSamplesWithTheLabel() {
    assertThat(PrometheusText.sum(METRICS, "operator_sdk_reconciliations_started_total", ""))
        .isEqualTo(15.0);
    assertThat(PrometheusText.sum(METRICS, "operator_sdk_reconciliations_started_total",
        "controller=\"other\"")).isEqualTo(3.0);
    assertThat(PrometheusText.sum(METRICS, "process_uptime_seconds", "")).isEqualTo(41.5);
  }

  @Test
  void aMetricNotYetRegisteredIsRefusedOrZeroAsAsked() {
    assertThatThrownBy(() -> PrometheusText.sum(METRICS,
        "operator_sdk_reconciliations_success_total", ""))
        .hasMessageContaining("operator_sdk_reconciliations_success_total");
    assertThat(PrometheusText.sumOrZero(METRICS, "operator_sdk_reconciliations_success_total", ""))
        .isZero();
    assertThat(PrometheusText.sumOrZero(METRICS, "operator_sdk_reconciliations_started_total",
        "")).isEqualTo(15.0);
  }

  @Test
  void seriesAreTheSampleLinesNotCommentsOrBlanks() {
    assertThat(OperatorLook.series(METRICS)).isEqualTo(3);
  }
}
