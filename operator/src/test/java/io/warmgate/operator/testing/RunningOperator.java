package io.warmgate.operator.testing;

import io.warmgate.operator.WarmgateOperator;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The operator with its test settings, started once per test class on an {@link ApiServer} after
 * its CRDs are applied, and closed after the class. Register it after the API server:
 * {@code @RegisterExtension @Order(1) static final ApiServer api = new ApiServer();} then
 * {@code @RegisterExtension @Order(2) static final RunningOperator operator =
 * RunningOperator.withRollouts(api);}.
 */
public final class RunningOperator implements BeforeAllCallback, AfterAllCallback {

  private final ApiServer api;
  private final List<Path> crds;
  private Policies policies;
  private WarmgateOperator operator;

  private RunningOperator(ApiServer api, List<Path> crds) {
    this.api = api;
    this.crds = crds;
  }

  /** With the CachePolicy and the Argo Rollouts CRDs. */
  public static RunningOperator withRollouts(ApiServer api) {
    return new RunningOperator(api, List.of(ApiServer.cachePolicyCrd(), ApiServer.rolloutCrd()));
  }

  /** With the CachePolicy CRD only. */
  public static RunningOperator withoutRollouts(ApiServer api) {
    return new RunningOperator(api, List.of(ApiServer.cachePolicyCrd()));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    crds.forEach(api::applyCrd);
    policies = new Policies(api.client());
    operator = Policies.startOperator(api.client());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (operator != null) {
      operator.close();
    }
  }

  /** Closes the operator and starts a new one, as a restarted pod would. */
  public void restart() {
    operator.close();
    operator = Policies.startOperator(api.client());
  }

  /** Closes the operator, as when its pod is gone; {@link #start} brings it back. */
  public void stop() {
    operator.close();
  }

  /** Starts the operator again after {@link #stop}. */
  public void start() {
    operator = Policies.startOperator(api.client());
  }

  /** Policies and workloads written with the API server's cluster-admin client. */
  public Policies policies() {
    return policies;
  }

  /** The running operator; null before the class starts. */
  public WarmgateOperator get() {
    return operator;
  }
}
