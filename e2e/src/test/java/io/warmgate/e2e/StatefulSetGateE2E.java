package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.testing.KwokClusterExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The readiness style on a StatefulSet end to end: the real StatefulSet controller
 * (kube-controller-manager) rolls out {@code examples/statefulset/} (4 replicas,
 * {@code OrderedReady}, a {@code RollingUpdate}), replacing the highest ordinal first and each
 * next pod only once the one before is Ready. The webhook gives the pods the
 * {@code warmgate.io/warm} readiness gate and the operator sets it; kwok plays the kubelet with
 * {@code hack/kwok/pod-stages.yaml}, under which a pod is Ready only once that condition is True.
 * Same stack as {@link DeploymentGateE2E}, whose same-schema case holds for a StatefulSet alike.
 */
class StatefulSetGateE2E {

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  private static final int DEALS = 2_000;
  private static final int MIN_COVERAGE = 95;

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  @Test
  void theFirstReplacedPodWaitsUnreadyUntilWarmAndHoldsTheRestOfTheUpdate() throws Exception {
    String name = "e2e-statefulset";
    try (DealStatefulSet app = new DealStatefulSet(cluster.client(), cluster.namespace(), name,
            stack, Map.of("hotSetSize", RolloutGateE2E.HOT_SET, "preloadRate", 100,
                "minCoverage", MIN_COVERAGE, "maxWait", "5m", "onTimeout", "Hold"),
            RolloutGateE2E.WORK);
        PodHistory history = new PodHistory(cluster.client(), cluster.namespace(), name,
            DealStatefulSet.REVISION_LABEL)) {
      GateScenario.awaitServing(app);
      String v1 = app.updateRevision();
      assertThat(history.ofRevision(v1)).as("the first revision's pods: no release in "
          + "progress, let in at once").hasSize(4)
          .allSatisfy(p -> assertThat(p.everWarmFalse()).as("%s", p).isFalse());

      String v2;
      String v2Schema;
      Duration release;
      try (Traffic traffic = scenario.warmUpHotSet(app, RolloutGateE2E.HOT_SET, 150)) {
        Instant since = Instant.now();
        app.setEnv("DEAL_SCHEMA_VERSION", "v2");
        v2 = await("the update revision").atMost(Duration.ofMinutes(1))
            .until(app::updateRevision, r -> r != null && !r.equals(v1));

        PodHistory.Seen first = await("the first replaced pod held: warmgate.io/warm False")
            .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
            .until(() -> history.ofRevision(v2).stream().findFirst().filter(PodHistory.Seen::everWarmFalse)
                .orElse(null), Objects::nonNull);
        assertThat(first.name).as("the highest ordinal is replaced first").isEqualTo(name + "-3");
        assertThat(first.warm.get(0)).as("%s", first).startsWith("False/");
        await("RolloutHeld while the pod waits").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
            assertThat(app.condition("RolloutHeld")).containsEntry("status", "True"));
        v2Schema = await("the new pods' schema hash in status.gate").atMost(Duration.ofMinutes(1))
            .until(() -> (String) app.gate().get("canarySchemaHash"), h -> h != null && !h.isEmpty());
        assertThat(history.ofRevision(v2)).as("no other pod replaced while the first waits")
            .hasSize(1);

        await("the first replaced pod Ready once its key space is warm").atMost(Duration.ofMinutes(4))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> history.ofRevision(v2).get(0).ready != null);
        double coverage = scenario.jobCoverage(app.cacheName, v2Schema);
        PodHistory.Seen letIn = history.ofRevision(v2).get(0);
        assertThat(letIn.warm).as("%s", letIn).last().isEqualTo("True/CoverageReached");
        assertThat(coverage).as("coverage of the warm job's ids in L2 right after the first "
            + "replaced pod became Ready, measured here").isGreaterThanOrEqualTo(MIN_COVERAGE);

        await("StatefulSet rolled out on v2").atMost(Duration.ofMinutes(4))
            .pollInterval(Duration.ofMillis(250)).until(app::healthyAndDone);
        release = Duration.between(since, Instant.now());
        List<PodHistory.Seen> replaced = history.ofRevision(v2);
        assertThat(replaced).extracting(p -> p.name).as("replaced from the highest ordinal down")
            .containsExactly(name + "-3", name + "-2", name + "-1", name + "-0");
        assertThat(replaced.subList(1, replaced.size())).as("each replaced once the first was "
            + "Ready, and let in at once (%s)", replaced).allSatisfy(p -> {
              assertThat(p.added).isAfterOrEqualTo(letIn.ready);
              assertThat(p.everWarmFalse()).as("%s, created once warm", p).isFalse();
            });
        System.out.printf("%s: %d lookups answered, %d failed during the update (by status, "
            + "-1 = no answer: %s)%n", name, traffic.ok.get(), traffic.failed.get(), traffic.failures());
      }
      long[] settled = scenario.settledKeySpaceCounts(app.cacheName, v2Schema);
      String causes = app.originReadCauses(v2Schema);
      PodHistory.Seen first = history.ofRevision(v2).get(0);
      System.out.printf("%s: schema change rolled out in %d s, the first replaced pod unready "
              + "for %d s; %d Spanner reads for %d distinct keys of the v2 key space (%.3f per id); %s%n",
          name, release.toSeconds(), Duration.between(first.added, first.ready).toSeconds(),
          settled[0], settled[1], (double) settled[0] / Math.max(1, settled[1]), causes);
      assertThat(settled[0]).as("Spanner reads of the v2 key space vs its distinct keys (%s)",
          causes).isLessThanOrEqualTo(Math.round(1.05 * settled[1]) + 5);
    }
  }
}
