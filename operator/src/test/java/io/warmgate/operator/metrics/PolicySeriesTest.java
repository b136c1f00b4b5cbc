package io.warmgate.operator.metrics;

import static io.warmgate.operator.metrics.PolicyFixtures.condition;
import static io.warmgate.operator.metrics.PolicyFixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.Constants;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceAction;
import io.javaoperatorsdk.operator.processing.event.source.controller.ResourceEvent;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceRole;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TargetKind;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The series one CachePolicy adds to the operator's {@code /metrics}, counted in the Prometheus
 * text the operator serves, for a policy with everything that adds series: a Rollout target with
 * every condition, a held canary with coverage, a forecast with a budget and a preload in
 * progress, agents of every role and known ready replicas, reconciled once and once failed through
 * the operator's JOSDK metrics. At 1,000 policies each series here is a thousand in Prometheus.
 */
class PolicySeriesTest {

  static final int MAX_SERIES_PER_POLICY = 10;
  private static final String NAMESPACE = "shop";
  private static final String NAME = "deals";
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void aPolicyWithEverythingAddsAtMostTenSeries() throws Exception {
    CachePolicy policy = worstCase();
    PolicyMetrics policyMetrics = new PolicyMetrics(registry, () -> Stream.of(policy),
        (namespace, ref) -> OptionalInt.of(4), Clock.systemUTC());
    reconcileThroughJosdkMetrics(ReconcileErrorMetrics.overJosdk(registry), policy);
    policyMetrics.refresh();

    String text = registry.scrape();

    List<String> ofPolicy = text.lines().filter(l -> !l.startsWith("#"))
        .filter(l -> labelValues(l).contains(NAME)).toList();
    assertThat(ofPolicy).as("series labelled with the policy").isNotEmpty()
        .hasSizeLessThanOrEqualTo(MAX_SERIES_PER_POLICY);
    List<String> josdk = text.lines().filter(l -> l.startsWith("operator_sdk_")).toList();
    assertThat(josdk).as("JOSDK's series").isNotEmpty()
        .allSatisfy(l -> assertThat(labelValues(l)).doesNotContain(NAME, NAMESPACE));
  }

  /**
   * What JOSDK records for one policy's event and reconciliations. Its gauges (reconciliations
   * executing, queued) are keyed by controller in either mode and need a registered controller, so
   * they are left out.
   */
  private static void reconcileThroughJosdkMetrics(Metrics metrics, CachePolicy policy)
      throws Exception {
    ResourceID id = ResourceID.fromResource(policy);
    Map<String, Object> metadata = Map.of(Constants.CONTROLLER_NAME, "cachepolicyreconciler",
        Constants.RESOURCE_GVK_KEY, GroupVersionKind.gvkFor(CachePolicy.class));
    metrics.receivedEvent(new ResourceEvent(ResourceAction.UPDATED, id, policy), metadata);
    metrics.timeControllerExecution(new Metrics.ControllerExecution<String>() {
      @Override
      public String name() {
        return "reconcile";
      }

      @Override
      public String controllerName() {
        return "cachepolicyreconciler";
      }

      @Override
      public String successTypeName(String result) {
        return "resource";
      }

      @Override
      public ResourceID resourceID() {
        return id;
      }

      @Override
      public Map<String, Object> metadata() {
        return metadata;
      }

      @Override
      public String execute() {
        return "done";
      }
    });
    metrics.finishedReconciliation(policy, metadata);
    metrics.failedReconciliation(policy, new IllegalStateException("API server down"), metadata);
    metrics.cleanupDoneFor(id, metadata);
  }

  private static List<String> labelValues(String line) {
    List<String> values = new ArrayList<>();
    Matcher m = LABEL.matcher(line);
    while (m.find()) {
      values.add(m.group(2));
    }
    return values;
  }

  private static CachePolicy worstCase() {
    CachePolicy policy = policy(NAMESPACE, NAME, TargetKind.Rollout, "deal-service");
    CachePolicyStatus status = new CachePolicyStatus();
    status.getConditions().addAll(List.of(condition("Ready", "True", "Reconciled"),
        condition("L2Reachable", "True", "Connected"), condition("Warmed", "False", "Warming"),
        condition("RolloutHeld", "True", "Warming"), condition("Conflict", "False", "SolePolicy"),
        condition("ChangesFollowed", "True", "Following")));
    for (KeySpaceRole role : new KeySpaceRole[] {KeySpaceRole.Stable, KeySpaceRole.Canary, null}) {
      KeySpaceStatus keySpace = new KeySpaceStatus();
      keySpace.setSchemaHash("hash-" + role);
      keySpace.setRole(role);
      keySpace.setAgents(2);
      status.getKeySpaces().add(keySpace);
    }
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Warming);
    gate.setStartedAt("2026-01-02T03:04:00Z");
    gate.setCoverage(24.0);
    gate.setTarget(80);
    ForecastStatus forecast = new ForecastStatus();
    forecast.setOriginRate(800.0);
    forecast.setPeak(1240.5);
    forecast.setBudget(3000);
    forecast.setPreloadRate(350.0);
    gate.setForecast(forecast);
    status.setGate(gate);
    policy.setStatus(status);
    return policy;
  }
}
