package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.warmgate.testing.KwokClusterExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The analysis style end to end: the real Argo Rollouts controller runs the example
 * AnalysisTemplate ({@code examples/analysis/}) as a canary step, and as a blue-green Rollout's
 * {@code prePromotionAnalysis}; its {@code web} metric asks the operator's {@code GET /gate/} on
 * 127.0.0.1, and the release goes on only once the operator answers warm; the operator patches
 * nothing of the Rollout. Same stack as {@link RolloutGateE2E}.
 */
class AnalysisGateE2E {

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  private static final int DEALS = 2_000;

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  @Test
  void analysisStepRunsUntilTheCanaryIsWarm() throws Exception {
    gatedByAnalysisUntilWarm("e2e-analysis", app -> app.gateByAnalysis(stack.operatorMetricsAddress()));
  }

  /**
   * A blue-green Rollout's {@code prePromotionAnalysis} holds the preview pods unpromoted until
   * the operator answers warm; they are gateable this way only, having no canary steps.
   */
  @Test
  void prePromotionAnalysisHoldsABlueGreenRolloutUntilWarm() throws Exception {
    gatedByAnalysisUntilWarm("e2e-bluegreen",
        app -> app.gateBlueGreenByAnalysis(stack.operatorMetricsAddress()));
  }

  /**
   * Deploys {@code name}, gates it by an analysis with {@code gate}, releases a schema change and
   * checks that the analysis said "not warm" before it succeeded on a warm answer, that the
   * Rollout then finished, and that each id of the new key space was read from Spanner once.
   */
  private void gatedByAnalysisUntilWarm(String name, Consumer<DealRollout> gate) throws Exception {
    try (DealRollout app = scenario.deploy(name, Map.of("mode", "Preload",
            "hotSetSize", RolloutGateE2E.HOT_SET, "preloadRate", 100, "minCoverage", 95,
            "maxWait", "5m", "onTimeout", "Hold"), RolloutGateE2E.WORK);
        Traffic traffic = scenario.warmUpHotSet(app, RolloutGateE2E.HOT_SET, 150)) {
      gate.accept(app);
      await("policy in the analysis style").atMost(Duration.ofMinutes(1))
          .until(() -> "ExternalGate".equals(app.condition("RolloutHeld").get("reason")));

      String stablePods = app.currentPodHash();
      Instant since = Instant.now();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");

      await("analysis running").atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> !app.analysisRuns().isEmpty() && !stablePods.equals(app.currentPodHash()));
      String canaryHash = await("new pods' schema hash known").atMost(Duration.ofMinutes(1))
          .until(() -> (String) app.gate().get("canarySchemaHash"), h -> h != null && !h.isEmpty());
      assertThat(canaryHash).isNotEqualTo(app.gate().get("stableSchemaHash"));

      GenericKubernetesResource run = await("analysis successful").atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofMillis(200)).until(() -> {
            List<GenericKubernetesResource> runs = app.analysisRuns();
            return runs.get(runs.size() - 1);
          }, r -> "Successful".equals(DealRollout.map(r.getAdditionalProperties()
              .getOrDefault("status", Map.of())).get("phase")));
      Duration released = Duration.between(since, Instant.now());
      List<Map<String, Object>> measurements = measurements(run);
      long notWarm = measurements.stream().filter(m -> "Failed".equals(m.get("phase"))).count();
      Map<String, Object> last = measurements.get(measurements.size() - 1);
      assertThat(last.get("phase")).isEqualTo("Successful");
      assertThat((String) last.get("value")).contains("\"warm\":true")
          .contains("\"reason\":\"CoverageReached\"");
      assertThat(notWarm).as("measurements that said 'not warm yet' before the success: the "
          + "analysis waited for the preload").isGreaterThanOrEqualTo(1);

      await("rollout Healthy on v2").atMost(Duration.ofMinutes(3)).until(app::healthyAndDone);
      assertThat(app.pauseReasons()).isEmpty();
      traffic.close();
      long[] settled = scenario.settledKeySpaceCounts(app.cacheName, canaryHash);
      String causes = app.originReadCauses(canaryHash);
      System.out.printf("%s: analysis successful %d s after the schema change, after %d "
              + "'not warm' measurements; %d Spanner reads for %d distinct keys of the v2 key "
              + "space (%.3f per id); %s%n", name, released.toSeconds(), notWarm, settled[0],
          settled[1], (double) settled[0] / Math.max(1, settled[1]), causes);
      assertThat(settled[0]).as("Spanner reads of the v2 key space vs its distinct keys (%s)",
          causes).isLessThanOrEqualTo(Math.round(1.05 * settled[1]) + 5);
    }
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> measurements(GenericKubernetesResource run) {
    Map<String, Object> status = DealRollout.map(run.getAdditionalProperties().get("status"));
    List<Map<String, Object>> results = (List<Map<String, Object>>) status.get("metricResults");
    return (List<Map<String, Object>>) results.get(0).get("measurements");
  }
}
