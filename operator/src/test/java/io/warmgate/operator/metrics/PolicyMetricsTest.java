package io.warmgate.operator.metrics;

import static io.warmgate.operator.metrics.PolicyFixtures.condition;
import static io.warmgate.operator.metrics.PolicyFixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceRole;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TargetKind;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PolicyMetricsTest {

  private static final Instant NOW = Instant.parse("2026-01-02T03:10:00Z");

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<CachePolicy> policies = new ArrayList<>();
  private final PolicyMetrics metrics = new PolicyMetrics(registry, policies::stream,
      (namespace, ref) -> ref.getName().equals("gone") ? OptionalInt.empty() : OptionalInt.of(4),
      Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void heldCanaryIsExportedWithPhaseHeldTimeCoverageConditionsAndAgents() {
    CachePolicy held = policy("shop", "deals", TargetKind.Rollout, "deal-service");
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Warming);
    gate.setStartedAt("2026-01-02T03:04:00Z");
    gate.setCoverage(24.0);
    gate.setTarget(80);
    held.getStatus().setGate(gate);
    held.getStatus().getConditions().add(condition("Ready", "True", "Reconciled"));
    held.getStatus().getConditions().add(condition("L2Reachable", "True", "Connected"));
    held.getStatus().getConditions().add(condition("RolloutHeld", "True", "Warming"));
    held.getStatus().getKeySpaces().add(keySpace(KeySpaceRole.Stable, 3));
    held.getStatus().getKeySpaces().add(keySpace(KeySpaceRole.Canary, 1));
    policies.add(held);

    String text = scrape();

    assertThat(text)
        .contains("warmgate_gate_phase{namespace=\"shop\",phase=\"Warming\",policy=\"deals\"} 1")
        .contains("warmgate_gate_held_seconds{namespace=\"shop\",policy=\"deals\"} 360")
        .contains("warmgate_gate_coverage_ratio{namespace=\"shop\",policy=\"deals\"} 0.24")
        .contains("warmgate_policy_condition{condition=\"RolloutHeld\",namespace=\"shop\","
            + "policy=\"deals\",reason=\"Warming\",status=\"True\"} 1")
        .contains("warmgate_policy_agents{namespace=\"shop\",policy=\"deals\"} 4")
        .contains("warmgate_policy_target_ready_replicas{namespace=\"shop\",policy=\"deals\"} 4");
    assertThat(series(text, "warmgate_gate_phase")).as("only the current phase").hasSize(1);
  }

  @Test
  void forecastPeakIsExportedAsOneSeriesPerPolicyAndGoesAwayWithIt() {
    CachePolicy held = policy("shop", "deals", TargetKind.Rollout, "deal-service");
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Warming);
    ForecastStatus forecast = new ForecastStatus();
    forecast.setOriginRate(800.0);
    forecast.setPeak(1240.5);
    forecast.setBudget(3000);
    forecast.setPreloadRate(350.0);
    gate.setForecast(forecast);
    held.getStatus().setGate(gate);
    policies.add(held);

    String text = scrape();

    assertThat(text)
        .contains("warmgate_gate_forecast_peak_reads_per_second{namespace=\"shop\","
            + "policy=\"deals\"} 1240.5");
    // The steady and preload rates are the agents' own series; the budget is in the spec.
    assertThat(series(text, "warmgate_gate_forecast_")).hasSize(1);
    assertThat(series(text, "warmgate_gate_origin_budget")).isEmpty();
    assertThat(series(text, "warmgate_gate_preload_rate")).isEmpty();

    gate.setForecast(null);
    assertThat(series(scrape(), "warmgate_gate_forecast_peak_reads_per_second")).isEmpty();
  }

  @Test
  void releasedCanaryHoldsNothing() {
    CachePolicy released = policy("shop", "deals", TargetKind.Rollout, "deal-service");
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Promoted);
    gate.setStartedAt("2026-01-02T03:04:00Z");
    released.getStatus().setGate(gate);
    released.getStatus().getConditions().add(condition("RolloutHeld", "False", "CoverageReached"));
    policies.add(released);

    assertThat(scrape())
        .contains("warmgate_gate_held_seconds{namespace=\"shop\",policy=\"deals\"} 0")
        .contains("warmgate_gate_phase{namespace=\"shop\",phase=\"Promoted\",policy=\"deals\"} 1");
  }

  @Test
  void heldWithoutStartTimeCountsFromTheConditionsTransition() {
    CachePolicyStatus status = new CachePolicyStatus();
    Condition c = condition("RolloutHeld", "True", "AgentNotInjected");
    c.setLastTransitionTime("2026-01-02T03:09:30Z");
    status.getConditions().add(c);
    assertThat(PolicyMetrics.heldSeconds(status, new GateStatus(), NOW)).isEqualTo(30.0);
  }

  @Test
  void deploymentTargetHasConditionsAndReplicasButNoGateSeries() {
    CachePolicy policy = policy("shop", "inject-only", TargetKind.Deployment, "web");
    policy.getStatus().getConditions().add(condition("Ready", "False", "SecretNotFound"));
    policies.add(policy);

    String text = scrape();

    assertThat(text).contains("warmgate_policy_condition{condition=\"Ready\",namespace=\"shop\","
        + "policy=\"inject-only\",reason=\"SecretNotFound\",status=\"False\"} 1")
        .contains("warmgate_policy_target_ready_replicas{namespace=\"shop\",policy=\"inject-only\"} 4");
    assertThat(series(text, "warmgate_gate_")).isEmpty();
    assertThat(series(text, "warmgate_policy_agents")).isEmpty();
  }

  @Test
  void seriesOfADeletedPolicyGoAway() {
    CachePolicy policy = policy("shop", "deals", TargetKind.Rollout, "deal-service");
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Idle);
    policy.getStatus().setGate(gate);
    policy.getStatus().getConditions().add(condition("Ready", "True", "Reconciled"));
    policies.add(policy);
    assertThat(series(scrape(), "warmgate_gate_phase")).isNotEmpty();

    policies.clear();

    String text = scrape();
    assertThat(series(text, "warmgate_gate_")).isEmpty();
    assertThat(series(text, "warmgate_policy_")).isEmpty();
  }

  @Test
  void aPolicyContributesABoundedNumberOfSeriesWhateverItsSize() {
    CachePolicy policy = policy("shop", "deals", TargetKind.Rollout, "deal-service");
    GateStatus gate = new GateStatus();
    gate.setPhase(GatePhase.Warming);
    gate.setCoverage(50.0);
    gate.setTarget(80);
    policy.getStatus().setGate(gate);
    for (String type : List.of("Ready", "L2Reachable", "Warmed", "RolloutHeld", "Conflict")) {
      policy.getStatus().getConditions().add(condition(type, "True", "Any"));
    }
    for (int i = 0; i < 50; i++) {
      policy.getStatus().getKeySpaces().add(keySpace(i % 2 == 0 ? null : KeySpaceRole.Stable, 2));
    }
    policies.add(policy);

    String text = scrape();

    // phase + held + coverage + 3 of the 5 conditions + agents + ready replicas
    assertThat(series(text, "warmgate_gate_").size()
        + series(text, "warmgate_policy_").size()).isEqualTo(1 + 1 + 1 + 3 + 1 + 1);
    assertThat(text).contains("warmgate_policy_agents{namespace=\"shop\",policy=\"deals\"} 100")
        .doesNotContain("condition=\"Warmed\"").doesNotContain("condition=\"Conflict\"");
  }

  @Test
  void anUnknownTargetHasNoReplicaSeries() {
    policies.add(policy("shop", "deals", TargetKind.Rollout, "gone"));
    assertThat(series(scrape(), "warmgate_policy_target_ready_replicas")).isEmpty();
  }

  private String scrape() {
    metrics.refresh();
    return registry.scrape();
  }

  private static List<String> series(String text, String prefix) {
    return text.lines().filter(l -> l.startsWith(prefix)).toList();
  }

  private static KeySpaceStatus keySpace(KeySpaceRole role, int agents) {
    KeySpaceStatus ns = new KeySpaceStatus();
    ns.setSchemaHash("h" + agents + role);
    ns.setRole(role);
    ns.setAgents(agents);
    return ns;
  }
}
