package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.testing.KwokClusterExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The readiness style end to end: the real Deployment controller (kube-controller-manager) rolls
 * out {@code examples/deployment/} (4 replicas, {@code maxSurge: 1}, {@code maxUnavailable: 0}),
 * the webhook gives its pods the {@code warmgate.io/warm} readiness gate and the operator sets it.
 * kwok plays the kubelet with {@code hack/kwok/pod-stages.yaml}, under which a pod is Ready only
 * once that condition is True; traffic goes to Ready pods only, as a Service sends it. Same stack
 * as {@link RolloutGateE2E}, and tagged {@value RolloutGateE2E#KIND_TIER} like it: the test
 * command runs it on Kind, with container pods and the real kubelet.
 */
@Tag(RolloutGateE2E.KIND_TIER)
class DeploymentGateE2E {

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
  void theFirstNewPodWaitsUnreadyUntilWarmAndASameSchemaChangeGoesAtOnce() throws Exception {
    String name = "e2e-deployment";
    try (DealDeployment app = new DealDeployment(cluster.client(), cluster.namespace(), name,
            stack, Map.of("hotSetSize", RolloutGateE2E.HOT_SET, "preloadRate", 100,
                "minCoverage", MIN_COVERAGE, "maxWait", "5m", "onTimeout", "Hold"),
            RolloutGateE2E.WORK);
        PodHistory history = new PodHistory(cluster.client(), cluster.namespace(), name,
            DealDeployment.POD_HASH_LABEL)) {
      GateScenario.awaitServing(app);
      String v1Pods = app.newestPodHash();
      assertThat(history.ofRevision(v1Pods)).as("the first revision's pods: no release in "
          + "progress, let in at once").hasSize(4)
          .allSatisfy(p -> assertThat(p.everWarmFalse()).as("%s", p).isFalse());

      String v2Pods;
      String v2Schema;
      Duration schemaRelease;
      try (Traffic traffic = scenario.warmUpHotSet(app, RolloutGateE2E.HOT_SET, 150)) {
        Instant since = Instant.now();
        app.setEnv("DEAL_SCHEMA_VERSION", "v2");
        v2Pods = await("the new ReplicaSet").atMost(Duration.ofMinutes(1))
            .until(app::newestPodHash, h -> h != null && !h.equals(v1Pods));

        PodHistory.Seen first = await("the first new pod held: warmgate.io/warm False")
            .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
            .until(() -> history.ofRevision(v2Pods).stream().filter(PodHistory.Seen::everWarmFalse)
                .findFirst().orElse(null), Objects::nonNull);
        assertThat(first.warm.get(0)).as("%s", first).startsWith("False/");
        // The pods' conditions are patched first, the policy's status right after.
        await("RolloutHeld while the pod waits").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
            assertThat(app.condition("RolloutHeld")).containsEntry("status", "True"));
        v2Schema = await("the new pods' schema hash in status.gate").atMost(Duration.ofMinutes(1))
            .until(() -> (String) app.gate().get("canarySchemaHash"), h -> h != null && !h.isEmpty());

        await("the first new pod Ready once its key space is warm").atMost(Duration.ofMinutes(4))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> history.ofRevision(v2Pods).get(0).ready != null);
        double coverage = scenario.jobCoverage(app.cacheName, v2Schema);
        PodHistory.Seen letIn = history.ofRevision(v2Pods).get(0);
        assertThat(letIn.warm).as("%s", letIn).last().isEqualTo("True/CoverageReached");
        assertThat(coverage).as("coverage of the warm job's ids in L2 right after the first new "
            + "pod became Ready, measured here").isGreaterThanOrEqualTo(MIN_COVERAGE);

        await("Deployment rolled out on v2").atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofMillis(250)).until(app::healthyAndDone);
        schemaRelease = Duration.between(since, Instant.now());
        List<PodHistory.Seen> v2 = history.ofRevision(v2Pods);
        assertThat(v2).as("pods of the new revision").hasSizeGreaterThanOrEqualTo(4);
        assertThat(v2.subList(1, v2.size())).as("maxSurge 1, maxUnavailable 0: no other new pod "
            + "before the first was Ready (%s)", v2).allSatisfy(p -> {
              assertThat(p.added).isAfterOrEqualTo(letIn.ready);
              assertThat(p.everWarmFalse()).as("%s, created once warm", p).isFalse();
            });
        System.out.printf("%s: %d lookups answered, %d failed during the release (by status, "
            + "-1 = no answer: %s)%n", name, traffic.ok.get(), traffic.failed.get(),
            traffic.failures());
      }
      long[] settled = scenario.settledKeySpaceCounts(app.cacheName, v2Schema);
      String causes = app.originReadCauses(v2Schema);
      System.out.printf("%s: schema change rolled out in %d s, the first new pod unready for "
              + "%d s; %d Spanner reads for %d distinct keys of the v2 key space (%.3f per id); %s%n",
          name, schemaRelease.toSeconds(), Duration.between(history.ofRevision(v2Pods).get(0).added,
              history.ofRevision(v2Pods).get(0).ready).toSeconds(), settled[0], settled[1],
          (double) settled[0] / Math.max(1, settled[1]), causes);
      assertThat(settled[0]).as("Spanner reads of the v2 key space vs its distinct keys (%s)",
          causes).isLessThanOrEqualTo(Math.round(1.05 * settled[1]) + 5);

      Instant since = Instant.now();
      app.setEnv("APP_REVISION", "2");
      String v2Again = await("the same-schema ReplicaSet").atMost(Duration.ofMinutes(1))
          .until(app::newestPodHash, h -> h != null && !h.equals(v2Pods));
      await("Deployment rolled out the same-schema change").atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(250)).until(app::healthyAndDone);
      Duration sameSchemaRelease = Duration.between(since, Instant.now());
      assertThat(history.ofRevision(v2Again)).as("pods of the same-schema revision")
          .hasSizeGreaterThanOrEqualTo(4).allSatisfy(p -> assertThat(p.warm).as("%s: unready "
              + "only until its agent said its schema hash, as its own start keeps it anyway", p)
              .isSubsetOf("False/WaitingForAgents", "True/SchemaUnchanged")
              .last().isEqualTo("True/SchemaUnchanged"));
      System.out.printf("%s: same-schema change rolled out in %d s, no pod held past its agent's start%n", name,
          sameSchemaRelease.toSeconds());
    }
  }
}
