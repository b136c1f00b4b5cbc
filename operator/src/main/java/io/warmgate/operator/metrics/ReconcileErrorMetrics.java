package io.warmgate.operator.metrics;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/**
 * The JOSDK metrics of {@code delegate} plus {@code warmgate_reconcile_errors_total}: failed
 * reconciliations of any policy, registered at start so that the series exists (at 0) before the
 * first failure and an alert on its increase has something to read. Which policy failed is in
 * {@code warmgate_policy_condition{condition="Ready",reason="ReconcileFailed"}}.
 */
public final class ReconcileErrorMetrics implements Metrics {

  private final Metrics delegate;
  private final Counter errors;

  /**
   * The operator's metrics: JOSDK's per controller, with the error counter. Per resource, JOSDK
   * would add about 70 series per policy (its reconcile-time histogram alone has 68 buckets), and
   * its builder collects per resource unless told otherwise.
   */
  public static ReconcileErrorMetrics overJosdk(MeterRegistry registry) {
    return new ReconcileErrorMetrics(MicrometerMetrics.newMicrometerMetricsBuilder(registry)
        .notCollectingMetricsPerResource().build(), registry);
  }

  public ReconcileErrorMetrics(Metrics delegate, MeterRegistry registry) {
    this.delegate = delegate;
    this.errors = Counter.builder("warmgate.reconcile.errors")
        .description("Reconciliations of a CachePolicy that threw (the operator retries them)")
        .register(registry);
  }

  @Override
  public void failedReconciliation(HasMetadata resource, Exception exception,
      Map<String, Object> metadata) {
    errors.increment();
    delegate.failedReconciliation(resource, exception, metadata);
  }

  @Override
  public void controllerRegistered(Controller<? extends HasMetadata> controller) {
    delegate.controllerRegistered(controller);
  }

  @Override
  public void receivedEvent(Event event, Map<String, Object> metadata) {
    delegate.receivedEvent(event, metadata);
  }

  @Override
  public void reconcileCustomResource(HasMetadata resource, RetryInfo retryInfo,
      Map<String, Object> metadata) {
    delegate.reconcileCustomResource(resource, retryInfo, metadata);
  }

  @Override
  public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
    delegate.reconciliationExecutionStarted(resource, metadata);
  }

  @Override
  public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
    delegate.reconciliationExecutionFinished(resource, metadata);
  }

  @Override
  public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
    delegate.cleanupDoneFor(resourceID, metadata);
  }

  @Override
  public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
    delegate.finishedReconciliation(resource, metadata);
  }

  @Override
  public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
    return delegate.timeControllerExecution(execution);
  }

  @Override
  public <T extends Map<?, ?>> T monitorSizeOf(T map, String name) {
    return delegate.monitorSizeOf(map, name);
  }
}
