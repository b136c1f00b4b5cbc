package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.cloud.spanner.Mutation;
import io.warmgate.example.deal.DealChanges;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.KwokClusterExtension;
import io.warmgate.testing.WarmgatePaths;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rollout gate end to end: the real Argo Rollouts controller on a kwok cluster, the operator as
 * its own process (webhook included), deal-service pods as local processes with the env the
 * webhook injected, the real Redis and Spanner emulator, and Zipf traffic. With
 * {@code WARMGATE_E2E_IN_CLUSTER=1} ({@code hack/kind-e2e.sh}) the same scenarios run on a real
 * cluster: the chart's operator, pods of the deal-service image, Valkey and the emulator in-cluster.
 * Tagged {@value #KIND_TIER}: {@code hack/test.sh} leaves it out of the kwok tier when its Kind tier
 * runs it.
 */
@Tag(RolloutGateE2E.KIND_TIER)
class RolloutGateE2E {

  /** The tag of the suites the Kind tier runs. */
  static final String KIND_TIER = "kind-tier";

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  private static final int DEALS = 2_000;
  static final int HOT_SET = 200;
  static final Path WORK = WarmgatePaths.processLogDir().resolve("e2e");

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  private static DealRollout deploy(String name, Map<String, Object> warmup) {
    return scenario.deploy(name, warmup, WORK);
  }

  /** Traffic until the cache's hot set holds the hot-set size. */
  private static Traffic warmUpHotSet(DealRollout app) {
    return scenario.warmUpHotSet(app, HOT_SET, 150);
  }

  @Test
  void schemaChangeIsHeldPreloadedAndReleasedOnceWarm() throws Exception {
    schemaChangeIsHeldPreloadedAndReleasedOnceWarm(scenario, "e2e-schema");
  }

  /**
   * A release that changes the cached type, on the stack {@code scenario} runs: the canary is held
   * at the gate while the hot set is preloaded into its new key space, released only once at
   * least 95 % of it is there (the coverage the operator recorded at the release, checked
   * against L2), and its key space costs Spanner about one read per key.
   */
  static void schemaChangeIsHeldPreloadedAndReleasedOnceWarm(GateScenario scenario, String name)
      throws Exception {
    try (DealRollout app = scenario.deploy(name, Map.of("mode", "Preload", "hotSetSize", HOT_SET,
            "preloadRate", 100, "minCoverage", 95, "maxWait", "5m", "onTimeout", "Hold"), WORK);
        Traffic traffic = scenario.warmUpHotSet(app, HOT_SET, 150)) {
      Instant since = Instant.now();
      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");

      await("canary held at the gate").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> app.paused() && List.of("Waiting", "Warming").contains(app.gate().get("phase")));
      String canaryHash = await("canary schema hash known").atMost(Duration.ofMinutes(1))
          .until(() -> (String) app.gate().get("canarySchemaHash"), h -> h != null && !h.isEmpty());
      assertThat(canaryHash).isNotEqualTo(app.gate().get("stableSchemaHash"));

      String canaryPods = app.currentPodHash();
      assertThat(canaryPods).isNotEqualTo(stablePods);

      // Released only once warm: the coverage the operator recorded when it released, in
      // status.gate and in its Event, reaches 95 %, and L2 holds at least that much right after.
      scenario.awaitRelease(app, canaryHash);
      scenario.assertReleasedWarm(app, canaryPods, canaryHash, 95, since);

      await("rollout Healthy on v2").atMost(Duration.ofMinutes(3)).until(app::healthyAndDone);
      assertThat(app.gate().get("phase")).isEqualTo("Promoted");
      // The release is over: stop traffic so that the counts can settle, then read them.
      traffic.close();
      long[] settled = scenario.settledKeySpaceCounts(app.cacheName, canaryHash);
      long originReads = settled[0];
      long distinctKeys = settled[1];
      String causes = app.originReadCauses(canaryHash);
      System.out.printf("%s: %d Spanner reads for %d distinct keys of the v2 key space; %s%n",
          name, originReads, distinctKeys, causes);
      assertThat(originReads).as("Spanner reads of the v2 key space vs the distinct keys it holds "
              + "(%s)", causes)
          .isLessThanOrEqualTo(Math.round(1.05 * distinctKeys) + 5);
    }
  }

  /**
   * Change streams end to end: the policy's {@code spec.changeStream} is injected into the pods,
   * each runs a watcher over {@code DealChanges}, one reads the stream (the policy's
   * {@code ChangesFollowed} condition and {@code status.changeStream} say which), and a deal
   * changed in Spanner is served by every pod within seconds, where L1 and L2 would keep the old
   * value for minutes.
   */
  @Test
  void aChangedDealIsServedFreshByEveryPod() throws Exception {
    stack.applyDdl(DealChanges.DDL);
    try (DealRollout app = scenario.deploy("e2e-fresh", Map.of(), Map.of("changeStream",
        Map.of("name", DealChanges.STREAM, "heartbeat", "500ms")), WORK)) {
      await("ChangesFollowed True").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
          .until(() -> "True".equals(app.condition("ChangesFollowed").get("status")));
      Map<String, Object> progress = DealRollout.map(app.policyStatus().get("changeStream"));
      assertThat(progress).containsEntry("name", DealChanges.STREAM);
      assertThat((String) progress.get("reader")).as("the reading pod").startsWith("e2e-fresh-");

      String id = DealSeeder.dealId(7);
      for (int port : app.ports()) {
        assertThat(Http.body("http://127.0.0.1:" + port + "/deals/" + id))
            .contains("\"floorPriceMicros\":" + DealSeeder.floorPriceMicros(7));
      }
      long price = 777_000_007L;
      long start = System.nanoTime();
      stack.databaseClient().write(List.of(Mutation.newUpdateBuilder("Deals").set("DealId").to(id)
          .set("FloorPriceMicros").to(price).build()));
      await("every pod serves the change").atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20)).until(() -> app.ports().stream().allMatch(port ->
              String.valueOf(Http.body("http://127.0.0.1:" + port + "/deals/" + id))
                  .contains("\"floorPriceMicros\":" + price)));
      System.out.printf("e2e-fresh: a changed deal served by all %d pods %d ms after its commit"
          + " returned (reader %s)%n", app.ports().size(), (System.nanoTime() - start) / 1_000_000,
          progress.get("reader"));
    }
  }

  @Test
  void sameSchemaIsReleasedAtOnceAndSkipped() throws Exception {
    try (DealRollout app = deploy("e2e-skip", Map.of("mode", "Preload", "hotSetSize", HOT_SET,
            "preloadRate", 100, "minCoverage", 95, "maxWait", "5m", "onTimeout", "Hold"));
        Traffic traffic = new Traffic(app::ports, DEALS, 1.1, 50, 7)) {
      Object firstRevision = app.rolloutStatus().get("stableRS");
      Set<String> phasesSeen = ConcurrentHashMap.newKeySet();
      app.setEnv("APP_REVISION", "2");

      // The bound only guards against a hang: how long the pods take to start depends on the machine.
      try {
        await("rollout Healthy on the new revision").atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(200))
            .until(() -> {
              phasesSeen.add(String.valueOf(app.gate().get("phase")));
              return app.healthyAndDone() && !firstRevision.equals(app.rolloutStatus().get("stableRS"));
            });
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("the same-schema rollout of " + app.name + " did not end Healthy on "
            + "its new revision within 4 min; gate phases seen " + phasesSeen + "; gate " + app.gate()
            + "; policy conditions " + app.policyStatus().get("conditions") + "; rollout status "
            + app.rolloutStatus() + "; pod template hashes " + app.podTemplateHashes(), e);
      }
      assertThat(app.gate().get("phase")).isEqualTo("Skipped");
      // Waiting is the phase while the canary's pods start and their agents register.
      assertThat(phasesSeen).as("a same-schema rollout waits for nothing but pods: the gate never warmed")
          .doesNotContain("Warming");
    }
  }

  @Test
  void spannerDownDuringPreloadTimesOutAndAborts() throws Exception {
    try (DealRollout app = deploy("e2e-abort", Map.of("mode", "Preload", "hotSetSize", HOT_SET,
            "preloadRate", 20, "minCoverage", 95, "maxWait", "40s", "onTimeout", "Abort"));
        Traffic traffic = warmUpHotSet(app)) {
      stack.stopSpanner();
      try {
        app.setEnv("DEAL_SCHEMA_VERSION", "v2");
        await("rollout aborted").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
            .until(() -> Boolean.TRUE.equals(app.rolloutStatus().get("abort")));
        // The Rollout is patched first, the policy's status right after.
        await("gate phase TimedOut").atMost(Duration.ofSeconds(30))
            .until(() -> "TimedOut".equals(app.gate().get("phase")));
      } finally {
        stack.startSpanner();
        DealSeeder.seed(stack.databaseClient(), DEALS);
      }
    }
  }

  /**
   * The operator dies while the canary warms and comes back while it is still cold (the origin
   * frozen meanwhile, so preload cannot finish behind its back): the operator back resumes the
   * same gate (same warm job, same hold start), holds the canary while it is cold, and releases it
   * once warm, once.
   */
  @Test
  void operatorKilledMidWarmResumesTheGateAndHoldsUntilWarm() throws Exception {
    try (DealRollout app = deploy("e2e-restart", Map.of("mode", "Preload", "hotSetSize", HOT_SET,
            "preloadRate", 20, "minCoverage", 95, "maxWait", "5m", "onTimeout", "Hold"));
        Traffic traffic = warmUpHotSet(app)) {
      Instant since = Instant.now();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      await("warming").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
          .until(() -> app.paused() && "Warming".equals(app.gate().get("phase")));
      Map<String, Object> before = app.gate();
      String canaryHash = (String) before.get("canarySchemaHash");
      String canaryPods = (String) before.get("canaryPodHash");
      Map<String, String> job = scenario.warmJob(app.cacheName, canaryHash);

      stack.killOperator();
      stack.freezeSpanner();
      try {
        await("preload waits for the origin").atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(250)).until(() -> String.valueOf(
                scenario.warmJob(app.cacheName, canaryHash).get("message"))
                .startsWith("waiting for the origin"));
        assertThat(scenario.jobCoverage(app.cacheName, canaryHash))
            .as("coverage in L2 while the operator is down and the origin frozen").isLessThan(95.0);

        stack.startOperator();
        // Only the operator back can copy the job's wait into the gate's message.
        await("the operator back has passed the gate").atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(250)).until(() -> String.valueOf(
                app.gate().get("message")).contains("waiting for the origin"));
        Map<String, Object> resumed = app.gate();
        assertThat(app.heldAtGate()).as("held by the operator back: the canary is cold").isTrue();
        assertThat(resumed).as("the gate the operator back resumed")
            .containsEntry("phase", "Warming").containsEntry("canaryPodHash", canaryPods)
            .containsEntry("canarySchemaHash", canaryHash)
            .containsEntry("startedAt", before.get("startedAt"));
        assertThat(((Number) resumed.get("coverage")).doubleValue())
            .as("status.gate.coverage the operator back recorded").isLessThan(95.0);
        assertThat(scenario.warmJob(app.cacheName, canaryHash)).as("the same warm job, resumed")
            .containsEntry("createdAt", job.get("createdAt"))
            .containsEntry("revision", job.get("revision"));
      } finally {
        stack.thawSpanner();
      }

      scenario.awaitRelease(app, canaryHash);
      scenario.assertReleasedWarm(app, canaryPods, canaryHash, 95, since);
      await("rollout Healthy on v2").atMost(Duration.ofMinutes(3)).until(app::healthyAndDone);
    }
  }
}
