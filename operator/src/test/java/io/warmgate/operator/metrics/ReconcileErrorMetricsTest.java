package io.warmgate.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcileErrorMetricsTest {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<String> delegated = new ArrayList<>();
  private final Metrics metrics = new ReconcileErrorMetrics(new Metrics() {
    @Override
    public void failedReconciliation(HasMetadata resource, Exception exception,
        Map<String, Object> metadata) {
      delegated.add("failed " + exception.getMessage());
    }
  }, registry);

  @Test
  void theErrorCounterExistsAtZeroBeforeTheFirstFailure() {
    assertThat(registry.scrape()).contains("warmgate_reconcile_errors_total 0.0");
  }

  @Test
  void aFailedReconciliationIsCountedAndStillReachesTheJosdkMetrics() {
    metrics.failedReconciliation(new CachePolicy(), new IllegalStateException("boom"), Map.of());
    metrics.failedReconciliation(new CachePolicy(), new IllegalStateException("again"), Map.of());

    assertThat(registry.scrape()).contains("warmgate_reconcile_errors_total 2.0");
    assertThat(delegated).containsExactly("failed boom", "failed again");
  }
}
