package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Event;
import io.warmgate.testing.KwokClusterExtension;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gate liveness end to end: whatever happens while a canary is held (the origin stops answering,
 * a person promotes, aborts or retries it, a newer revision is pushed, the policy is edited or
 * deleted, the Rollout is deleted, Valkey stays down past {@code maxWait}), the rollout ends
 * released, aborted or held with a status that says what happened, as the decision table in
 * {@code operator/README.md} promises. Same stack as {@link RolloutGateE2E}: the real Argo
 * Rollouts controller on a kwok cluster, the operator process, deal-service pods as local
 * processes, Redis and the Spanner emulator.
 *
 * <p>Each test deploys one app and runs several scenarios on it in turn, to keep the suite short;
 * each scenario logs how long it took. Every release by the gate is checked three ways: the
 * coverage recorded in {@code status.gate.releasedCoverage}, the one in the release Event, and
 * the one measured here in L2 over the warm job's ids.
 */
class GateLivenessE2E {

  private static final Logger log = LoggerFactory.getLogger(GateLivenessE2E.class);

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @RegisterExtension
  static final Stack stack = Stack.create();

  private static final int DEALS = 2_000;
  /** {@code warmup.hotSetSize}: the most hot ids the gate considers. */
  private static final int HOT_SET = 100;
  /**
   * Tracked hot ids the traffic builds before a test goes on: of them the gate keeps those
   * expected to be read within {@code l2Ttl} (those sampled more than once), a few dozen.
   */
  private static final int TRACKED = 60;
  private static final int MIN_COVERAGE = 95;
  private static final String HELD_FINALIZER = "warmgate.io/held-canary";
  private static final String GATE_DELETED = "warmgate.io/gate-deleted";
  private static final Duration CANARY_START = Duration.ofMinutes(3);
  /** Lookups the origin-budget scenario's traffic serves before its canary: about 35 s of it. */
  private static final int BUDGET_LOOKUPS = 5_000;

  @RegisterExtension
  @Order(GateScenario.LAST)
  static final GateScenario scenario = GateScenario.of(cluster, stack, DEALS);

  /**
   * Issue 13 item 1: Spanner stops answering while the canary's warm job preloads. The job waits
   * (same ids retried, progress kept, the wait in its message and in the gate's), the canary stays
   * held, and once Spanner answers again the job completes and the gate releases the canary with
   * no human action.
   */
  @Test
  void originOutageDuringPreloadIsWaitedOutAndTheCanaryReleasedOnceWarm() throws Exception {
    Phases phases = new Phases("origin outage");
    try (DealRollout app = scenario.deploy("e2e-origin", warmup("Preload", "preloadRate", 3), RolloutGateE2E.WORK)) {
      scenario.warmUpHotSet(app, TRACKED, 150).close();
      phases.done("deployed, hot set tracked");

      Instant since = Instant.now();
      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      String pods = awaitHeld(app, stablePods);
      String schema = awaitCanarySchema(app);
      await("preload under way").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
          .until(() -> number(scenario.warmJob(app.cacheName, schema), "filled") > 0);
      Map<String, String> job = scenario.warmJob(app.cacheName, schema);
      log.info("[origin outage] warm job {}", job);
      assertThat(number(job, "target")).as("ids in the warm job (%s): enough for the outage to fall "
          + "mid-preload", job).isGreaterThan(3 * number(job, "batchSize"));
      phases.done("canary held, preload under way");

      stack.freezeSpanner();
      try {
        await("the warm job waits for the origin").atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
              Map<String, String> waiting = scenario.warmJob(app.cacheName, schema);
              assertThat(waiting).containsEntry("state", "Running");
              assertThat(waiting.get("message")).startsWith("waiting for the origin");
              assertThat((String) app.gate().get("message")).as("the gate's message")
                  .contains("waiting for the origin");
            });
        Map<String, String> waiting = scenario.warmJob(app.cacheName, schema);
        assertThat(number(waiting, "filled")).as("ids loaded before the outage: fewer than the job's")
            .isLessThan(number(waiting, "target"));
        assertThat(app.heldAtGate()).as("held while the origin is down").isTrue();
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
            .containsEntry("reason", "Warming");
        assertThat(scenario.jobCoverage(app.cacheName, schema)).isLessThan(MIN_COVERAGE);
        phases.done("origin frozen, wait reported, still held");
      } finally {
        stack.thawSpanner();
      }

      scenario.awaitRelease(app, schema);
      scenario.assertReleasedWarm(app, pods, schema, MIN_COVERAGE, since);
      // Released once minCoverage was reached; the job loads its last ids right after.
      await("warm job completed").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        Map<String, String> done = scenario.warmJob(app.cacheName, schema);
        assertThat(done).containsEntry("state", "Done").containsEntry("errors", "0");
        assertThat(done.get("filled")).isEqualTo(done.get("target"));
      });
      phases.done("origin back, released without a hand");
    } finally {
      phases.log();
    }
  }

  /**
   * Issue 13 items 1 and 5 and the Proof's hand actions: a newer revision pushed while held gets a
   * fresh warm job and the gate's status follows it; a person aborts it (the operator leaves it
   * aborted); its values expire meanwhile; the person retries it: the job of that revision
   * re-warms the ids, and after the policy is edited while held (its hit-ratio criterion
   * dropped) the gate releases it, only once it is warm again.
   */
  @Test
  void newerRevisionAbortRetryAndEditWhileHeld() throws Exception {
    Phases phases = new Phases("revisions");
    // No lookups reach the canary, so its hit ratio stays unknown and minHitRatio holds it while
    // its namespace is warm: a hold that lasts as long as the test needs.
    Map<String, Object> warmup = warmup("Preload", "preloadRate", 50);
    warmup.put("minHitRatio", 50);
    warmup.put("hitRatioWindow", "30s");
    try (DealRollout app = scenario.deploy("e2e-revisions", warmup, RolloutGateE2E.WORK)) {
      scenario.warmUpHotSet(app, TRACKED, 150).close();
      phases.done("deployed, hot set tracked");

      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      String first = awaitHeld(app, stablePods);
      String schema = awaitCanarySchema(app);
      await("first revision preloaded, and held for its hit ratio").atMost(Duration.ofMinutes(2))
          .untilAsserted(() -> {
            assertThat(scenario.warmJob(app.cacheName, schema)).containsEntry("state", "Done")
                .containsEntry("revision", first);
            assertThat(app.gate().get("coverage")).as("coverage the gate measured")
                .isInstanceOf(Number.class);
            assertThat(((Number) app.gate().get("coverage")).doubleValue())
                .isGreaterThanOrEqualTo(MIN_COVERAGE);
            assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
                .containsEntry("reason", "Warming");
            assertThat((String) app.gate().get("message")).contains("hit ratio unknown of 50% needed");
          });
      assertThat(app.heldAtGate()).isTrue();
      long firstJobCreated = number(scenario.warmJob(app.cacheName, schema), "createdAt");
      phases.done("first revision held, preloaded");

      // A newer revision with the same schema while the first is held.
      app.setEnv("APP_REVISION", "2");
      String second = awaitHeld(app, first);
      await("the gate follows the newer revision").atMost(CANARY_START).untilAsserted(() -> {
        assertThat(app.gate()).containsEntry("canaryPodHash", second)
            .containsEntry("canarySchemaHash", schema).containsEntry("phase", "Warming");
        assertThat((String) app.condition("Warmed").get("message")).startsWith("canary " + second + ": ");
        assertThat(scenario.warmJob(app.cacheName, schema)).as("a fresh job for the newer revision")
            .containsEntry("revision", second).containsEntry("state", "Done");
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
            .containsEntry("reason", "Warming");
        assertThat((String) app.gate().get("message")).contains("hit ratio unknown of 50% needed");
      });
      Map<String, String> secondJob = scenario.warmJob(app.cacheName, schema);
      assertThat(number(secondJob, "createdAt")).as("created after the first revision's job")
          .isGreaterThan(firstJobCreated);
      assertThat(app.heldAtGate()).as("the newer revision is held too").isTrue();
      phases.done("newer revision held, fresh job");

      // Aborted by hand: reported, left aborted.
      app.abort();
      await("abort reported").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(app.gate()).containsEntry("phase", "Aborted").containsEntry("canaryPodHash", second);
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
            .containsEntry("reason", "RolloutAborted");
        assertThat(app.policyFinalizers()).doesNotContain(HELD_FINALIZER);
      });
      assertThat(app.rolloutStatus().get("abort")).as("the operator leaves the abort alone").isEqualTo(true);
      assertThat(app.gate()).doesNotContainKey("releasedAt");
      phases.done("aborted by hand");

      // Its values expire while it is aborted (deleted here: l2Ttl is 4 minutes), once no agent
      // of the aborted canary runs any more to keep them warm.
      await("aborted canary's pod stopped").atMost(Duration.ofMinutes(1))
          .until(() -> !app.podTemplateHashes().contains(second));
      assertThat(scenario.expireKeySpace(app.cacheName, schema)).isPositive();
      assertThat(scenario.jobCoverage(app.cacheName, schema)).isZero();
      long keptWarmBefore = number(scenario.warmJob(app.cacheName, schema), "keptWarm");

      // Retried by hand: held again as the same revision, which keeps its job.
      app.retry();
      await("retried canary held again").atMost(CANARY_START).pollInterval(Duration.ofMillis(200))
          .untilAsserted(() -> {
            assertThat(app.heldAtGate()).isTrue();
            assertThat(app.currentPodHash()).isEqualTo(second);
            assertThat(app.condition("RolloutHeld")).containsEntry("status", "True");
            assertThat(app.gate()).containsEntry("canaryPodHash", second);
          });
      assertThat(number(scenario.warmJob(app.cacheName, schema), "createdAt"))
          .as("the revision's job is kept, not reopened").isEqualTo(number(secondJob, "createdAt"));
      phases.done("retried, held again");

      // The policy edited while held: the hit-ratio criterion dropped.
      Instant since = Instant.now();
      long generation = app.editWarmup(nulls("minHitRatio", "hitRatioWindow"));
      scenario.awaitRelease(app, schema);
      scenario.assertReleasedWarm(app, second, schema, MIN_COVERAGE, since);
      assertThat(((Number) app.policyStatus().get("observedGeneration")).longValue())
          .isGreaterThanOrEqualTo(generation);
      assertThat((String) app.condition("Warmed").get("message")).doesNotContain("hit ratio");
      await("keep-warm pass recorded").atMost(Duration.ofMinutes(1)).untilAsserted(() ->
          assertThat(number(scenario.warmJob(app.cacheName, schema), "keptWarm"))
              .as("ids the job re-warmed after the retry").isGreaterThan(keptWarmBefore));
      phases.done("edited while held, re-warmed, released");
    } finally {
      phases.log();
    }
  }

  /**
   * People acting on a held canary, and Valkey down past {@code maxWait} with each
   * {@code onTimeout}: the policy deleted while it holds the canary (held, the Rollout annotated
   * with what to do) and applied again; the canary promoted by hand; Valkey killed, the next
   * canary held by {@code onTimeout: Hold}, then aborted by hand; retried and held again, then
   * the policy edited to {@code Promote} while held; the next one aborted by {@code onTimeout:
   * Abort}; the last retried, held, and its Rollout deleted.
   */
  @Test
  void handsOnAHeldCanaryAndValkeyDownPastMaxWait() throws Exception {
    Phases phases = new Phases("hands and Valkey");
    // Nothing reads the app, so its hot set stays empty: the gate holds the canary (HotSetEmpty)
    // until a person or maxWait acts.
    try (DealRollout app = scenario.deploy("e2e-hands", warmup("Organic"), RolloutGateE2E.WORK)) {
      phases.done("deployed");
      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      String first = awaitHeld(app, stablePods);
      await("hold recorded").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True");
        assertThat(app.policyFinalizers()).contains(HELD_FINALIZER);
      });
      phases.done("canary held");

      // The policy deleted while it holds the canary: still held, the Rollout says what to do.
      Instant deleted = Instant.now();
      app.policy().delete();
      await("policy gone").atMost(Duration.ofMinutes(1)).until(() -> app.policy().get() == null);
      assertThat(app.rolloutAnnotations().get(GATE_DELETED)).as("annotation " + GATE_DELETED)
          .contains("CachePolicy " + cluster.namespace() + "/" + app.name + " was deleted")
          .contains("canary " + first)
          .contains("kubectl argo rollouts promote " + app.name)
          .contains("kubectl argo rollouts abort " + app.name);
      assertThat(app.rolloutEvents("CachePolicyDeleted", deleted)).as("Events on the Rollout")
          .isNotEmpty().allSatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).contains("canary " + first)
                .contains("kubectl argo rollouts promote " + app.name);
          });
      assertThat(app.heldAtGate()).as("left held").isTrue();
      assertThat(app.currentPodHash()).isEqualTo(first);

      app.applyPolicyAgain();
      await("the policy gates the canary again").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(app.rolloutAnnotations()).doesNotContainKey(GATE_DELETED);
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True");
        assertThat(app.gate()).containsEntry("canaryPodHash", first);
      });
      assertThat(app.heldAtGate()).isTrue();
      phases.done("policy deleted while held, applied again");

      // Promoted by hand: the gate lets it go and says so.
      Instant promoted = Instant.now();
      app.promote();
      await("promotion by hand reported").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(app.gate()).containsEntry("phase", "Promoted").doesNotContainKey("releasedAt");
        assertThat((String) app.gate().get("message")).contains("without the gate releasing it");
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
            .containsEntry("reason", "PassedGate");
        assertThat(app.policyFinalizers()).doesNotContain(HELD_FINALIZER);
      });
      await("rollout Healthy on the promoted revision").atMost(CANARY_START).until(app::healthyAndDone);
      assertThat(app.currentPodHash()).isEqualTo(first);
      assertThat(app.gate()).containsEntry("phase", "Promoted");
      assertThat((String) app.gate().get("message")).contains("without the gate releasing it");
      assertThat(app.rolloutEvents("CoverageReached", promoted)).isEmpty();
      phases.done("promoted by hand");

      stack.stopValkey();
      try {
        // Valkey down, onTimeout Hold: held as TimedOut, until a person acts.
        app.editWarmup(Map.of("maxWait", "20s"));
        Instant timedOut = Instant.now();
        app.setEnv("DEAL_SCHEMA_VERSION", "v1");
        String second = awaitHeld(app, first);
        awaitTimedOutHold(app, second);
        assertThat(app.rolloutEvents("TimedOut", timedOut)).extracting(Event::getMessage)
            .anyMatch(m -> m.startsWith("held by onTimeout Hold: Valkey cannot be read"));
        assertStillHeld(app, Duration.ofSeconds(5));
        phases.done("Valkey down: held by onTimeout Hold");

        // Aborted by hand after that: reported as the person's abort.
        app.abort();
        await("abort by hand reported").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
          assertThat(app.gate()).containsEntry("phase", "Aborted").containsEntry("canaryPodHash", second);
          assertThat((String) app.gate().get("message")).isEqualTo("canary " + second + " was aborted");
          assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
              .containsEntry("reason", "RolloutAborted");
          assertThat(app.policyFinalizers()).doesNotContain(HELD_FINALIZER);
        });
        assertThat(app.rolloutStatus().get("abort")).isEqualTo(true);
        phases.done("aborted by hand after the hold");

        // Retried, held by onTimeout Hold again, then the policy edited to Promote while held.
        app.retry();
        awaitTimedOutHold(app, second);
        Instant edited = Instant.now();
        long generation = app.editWarmup(Map.of("onTimeout", "Promote"));
        await("released by onTimeout Promote").atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(200)).until(() -> !app.paused());
        await("release by onTimeout Promote reported").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
          assertThat(app.gate()).containsEntry("phase", "TimedOut").containsKey("releasedAt")
              .doesNotContainKey("releasedCoverage");
          assertThat((String) app.gate().get("message"))
              .startsWith("released by onTimeout Promote: Valkey cannot be read")
              .contains("coverage unknown of " + MIN_COVERAGE + "% needed");
          assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
              .containsEntry("reason", "TimedOut");
          assertThat(((Number) app.policyStatus().get("observedGeneration")).longValue())
              .isGreaterThanOrEqualTo(generation);
          assertThat(app.rolloutEvents("TimedOut", edited)).extracting(Event::getMessage)
              .anyMatch(m -> m.startsWith("released by onTimeout Promote: Valkey cannot be read"));
        });
        await("rollout Healthy on the released revision").atMost(CANARY_START).until(app::healthyAndDone);
        assertThat(app.currentPodHash()).isEqualTo(second);
        phases.done("edited to onTimeout Promote while held: released");

        // onTimeout Abort on the next revision.
        app.editWarmup(Map.of("onTimeout", "Abort"));
        Instant aborting = Instant.now();
        app.setEnv("DEAL_SCHEMA_VERSION", "v2");
        String third = awaitHeld(app, second);
        await("aborted by onTimeout Abort").atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
          assertThat(app.rolloutStatus().get("abort")).isEqualTo(true);
          assertThat(app.gate()).containsEntry("phase", "TimedOut").containsEntry("canaryPodHash", third);
          assertThat((String) app.gate().get("message")).contains("aborted by onTimeout Abort");
          assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
              .containsEntry("reason", "TimedOut");
          assertThat((String) app.condition("RolloutHeld").get("message"))
              .startsWith("aborted by onTimeout Abort: Valkey cannot be read");
          assertThat(app.rolloutEvents("TimedOut", aborting)).extracting(Event::getMessage)
              .anyMatch(m -> m.startsWith("aborted by onTimeout Abort: Valkey cannot be read"));
        });
        phases.done("Valkey down: aborted by onTimeout Abort");
      } finally {
        stack.startValkey();
      }

      // Retried and held again (Valkey back, the canary's namespace cold), then the Rollout
      // deleted: nothing is held any more, and the status says the target is gone.
      String retried = app.currentPodHash();
      app.editWarmup(Map.of("onTimeout", "Hold", "maxWait", "5m"));
      app.retry();
      await("held again").atMost(CANARY_START).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
        assertThat(app.heldAtGate()).isTrue();
        assertThat(app.currentPodHash()).isEqualTo(retried);
        assertThat(app.condition("L2Reachable")).containsEntry("status", "True");
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True");
        assertThat(app.policyFinalizers()).contains(HELD_FINALIZER);
      });
      app.rollout().delete();
      String gone = "Rollout " + cluster.namespace() + "/" + app.name
          + " named by spec.targetRef does not exist; create it or fix spec.targetRef.name";
      await("target gone reported").atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "False")
            .containsEntry("reason", "TargetNotFound");
        assertThat(app.condition("Ready")).containsEntry("status", "False")
            .containsEntry("reason", "TargetNotFound").containsEntry("message", gone);
        assertThat(app.gate()).containsEntry("phase", "Idle").containsEntry("message", gone);
        assertThat(app.policyFinalizers()).isEmpty();
      });
      app.policy().delete();
      await("policy deleted at once").atMost(Duration.ofSeconds(30)).until(() -> app.policy().get() == null);
      phases.done("Rollout deleted while held");
    } finally {
      phases.log();
    }
  }

  /**
   * Issue 28 item 5: the gate releases only its own pause. A background analysis whose one
   * measurement meets neither its success nor its failure condition leaves the canary paused by
   * the real Argo controller for {@code InconclusiveAnalysisRun}; once the canary is warm, the gate
   * holds it ({@code PausedForAnotherReason}) and removes no pause condition, since releasing would
   * approve the analysis too. The metric is read by the controller, a local process here, from an
   * endpoint of this test on loopback.
   */
  @Test
  void aWarmCanaryWhoseAnalysisIsInconclusiveStaysPausedForIt() throws Exception {
    Phases phases = new Phases("inconclusive analysis");
    HttpServer metric = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    metric.createContext("/", exchange -> {
      byte[] body = "{\"errorRate\": 5}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    metric.start();
    // Slow preload: the analysis is inconclusive well before the canary is warm.
    try (DealRollout app = scenario.deploy("e2e-analysis", warmup("Preload", "preloadRate", 2),
        RolloutGateE2E.WORK)) {
      scenario.warmUpHotSet(app, TRACKED, 150).close();
      app.analyseInBackground(Map.of("name", "error-rate", "count", 1,
          "successCondition", "result < 1", "failureCondition", "result > 10",
          "provider", Map.of("web", Map.of(
              "url", "http://127.0.0.1:" + metric.getAddress().getPort() + "/",
              "jsonPath", "{$.errorRate}"))), 1);
      phases.done("deployed, hot set tracked, analysis added");

      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      awaitHeld(app, stablePods);
      await("analysis inconclusive").atMost(CANARY_START).pollInterval(Duration.ofMillis(200))
          .until(() -> app.pauseReasons().contains("InconclusiveAnalysisRun"));
      phases.done("canary held at the gate, analysis inconclusive");

      await("warm, and held for the analysis").atMost(CANARY_START).untilAsserted(() -> {
        assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
            .containsEntry("reason", "PausedForAnotherReason");
        assertThat((String) app.gate().get("message")).contains("InconclusiveAnalysisRun");
      });
      phases.done("canary warm, held for the analysis");
      long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < end) {
        assertThat(app.pauseReasons()).as("both pauses stay, several gate passes later")
            .contains("CanaryPauseStep", "InconclusiveAnalysisRun");
        assertThat(app.rolloutStatus().get("currentStepIndex")).isEqualTo(1);
        Thread.sleep(500);
      }
      phases.done("still paused for both after 5 s");
    } finally {
      metric.stop(0);
      phases.log();
    }
  }

  /** The policy's warm-up rules of these tests: {@code mode}, then pairs of field and value. */
  /**
   * Issue 29: with {@code warmup.originBudget}, the gate holds a canary while the origin forecast
   * of releasing it exceeds the budget, and releases it once the preload has brought the forecast
   * under the budget, before the preload has finished. The canary is held cold first (Organic,
   * no traffic) until the traffic's last minute has left the agents' statistics, so the forecast
   * is the cold hot set's alone; the budget is then set to half of it, and the mode to Preload.
   */
  @Test
  void anOriginBudgetHoldsTheCanaryUntilPreloadBringsTheForecastUnderIt() throws Exception {
    Phases phases = new Phases("origin budget");
    try (DealRollout app = scenario.deploy("e2e-budget", warmup("Organic", "minCoverage", 100),
        RolloutGateE2E.WORK)) {
      // The forecast divides the hot set's lookups by the time observed, which goes on after the
      // traffic stops: enough lookups that a cold release's peak still asks for a few reads/s.
      try (Traffic traffic = scenario.warmUpHotSet(app, TRACKED, 150)) {
        await("the budget's traffic served").atMost(Duration.ofMinutes(2))
            .until(() -> traffic.ok.get() >= BUDGET_LOOKUPS);
      }
      phases.done("deployed, hot set tracked, " + BUDGET_LOOKUPS + " lookups served");

      Instant since = Instant.now();
      String stablePods = app.currentPodHash();
      app.setEnv("DEAL_SCHEMA_VERSION", "v2");
      awaitHeld(app, stablePods);
      String schema = awaitCanarySchema(app);
      Map<String, Object> cold = await("a cold canary's forecast, the traffic's last minute past")
          .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
          .until(() -> forecast(app), f -> f != null && figure(f, "originRate") == 0
              && figure(f, "peak") >= 4);
      long budget = Math.round(figure(cold, "peak") / 2);
      log.info("[origin budget] cold forecast {}, budget {}", cold, budget);
      phases.done("canary held cold, forecast read");

      app.editWarmup(Map.of("mode", "Preload", "preloadRate", 1, "minCoverage", 0,
          "originBudget", budget));
      await("held for the budget").atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Map<String, Object> f = forecast(app);
            assertThat(f).as("forecast").isNotNull();
            assertThat(figure(f, "budget")).as("forecast budget").isEqualTo((double) budget);
            assertThat(figure(f, "peak")).as("forecast peak over the budget").isGreaterThan(budget);
            assertThat(app.heldAtGate()).isTrue();
            assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
                .containsEntry("reason", "Warming");
            assertThat((String) app.gate().get("message"))
                .contains("of " + String.format("%,d", budget) + " reads/s budget");
          });
      phases.done("held while the forecast exceeds the budget");

      scenario.awaitRelease(app, schema);
      await("release recorded").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(app.condition("Warmed")).containsEntry("status", "True")
              .containsEntry("reason", "WithinOriginBudget"));
      String released = (String) app.condition("Warmed").get("message");
      Matcher fit = Pattern.compile("= ([0-9,]+) of ([0-9,]+) reads/s budget").matcher(released);
      assertThat(fit.find()).as("the forecast in the release message: %s", released).isTrue();
      assertThat(Long.parseLong(fit.group(1).replace(",", ""))).as(released)
          .isLessThanOrEqualTo(budget);
      Map<String, String> job = scenario.warmJob(app.cacheName, schema);
      assertThat(number(job, "filled")).as("released by the budget before the preload ended: %s",
          job).isLessThan(number(job, "target"));
      assertThat(app.policyEvents("WithinOriginBudget", since)).as("release Event").isNotEmpty();
      phases.done("released once the forecast fit");
    } finally {
      phases.log();
    }
  }

  /** {@code status.gate.forecast} of {@code app}'s policy, or null. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> forecast(DealRollout app) {
    Map<String, Object> gate = app.gate();
    return gate == null ? null : (Map<String, Object>) gate.get("forecast");
  }

  private static double figure(Map<String, Object> map, String field) {
    return map.get(field) instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static Map<String, Object> warmup(String mode, Object... fields) {
    Map<String, Object> warmup = new LinkedHashMap<>(Map.of("mode", mode, "hotSetSize", HOT_SET,
        "minCoverage", MIN_COVERAGE, "maxWait", "5m", "onTimeout", "Hold"));
    for (int i = 0; i < fields.length; i += 2) {
      warmup.put((String) fields[i], fields[i + 1]);
    }
    return warmup;
  }

  /** An edit that removes {@code fields}. */
  private static Map<String, Object> nulls(String... fields) {
    Map<String, Object> edit = new HashMap<>();
    for (String field : fields) {
      edit.put(field, null);
    }
    return edit;
  }

  /**
   * Waits until Argo runs a canary other than {@code previousPods} and holds it at the gate step.
   *
   * @return the canary's pod-template hash
   */
  private static String awaitHeld(DealRollout app, String previousPods) {
    return await("a new canary held at the gate").atMost(CANARY_START).pollInterval(Duration.ofMillis(200))
        .until(() -> app.heldAtGate() ? app.currentPodHash() : null,
            pods -> pods != null && !pods.equals(previousPods));
  }

  /** Waits until the gate knows the held canary's schema hash, and returns it. */
  private static String awaitCanarySchema(DealRollout app) {
    String schema = await("canary schema hash known").atMost(CANARY_START)
        .until(() -> (String) app.gate().get("canarySchemaHash"), h -> h != null && !h.isEmpty());
    assertThat(schema).isNotEqualTo(app.gate().get("stableSchemaHash"));
    return schema;
  }

  /** Waits until the canary {@code pods}, Valkey down, is held by {@code onTimeout: Hold}. */
  private static void awaitTimedOutHold(DealRollout app, String pods) {
    await("held by onTimeout Hold").atMost(CANARY_START).untilAsserted(() -> {
      assertThat(app.heldAtGate()).isTrue();
      assertThat(app.gate()).containsEntry("phase", "TimedOut").containsEntry("canaryPodHash", pods)
          .doesNotContainKey("releasedAt");
      assertThat((String) app.gate().get("message"))
          .startsWith("held by onTimeout Hold: Valkey cannot be read")
          .endsWith("promote or abort the rollout by hand");
      assertThat(app.condition("RolloutHeld")).containsEntry("status", "True")
          .containsEntry("reason", "TimedOut");
      assertThat(app.policyFinalizers()).contains(HELD_FINALIZER);
    });
  }

  /** Asserts that {@code app} stays held at its gate for {@code window} (several gate passes). */
  private static void assertStillHeld(DealRollout app, Duration window) throws InterruptedException {
    long end = System.nanoTime() + window.toNanos();
    while (System.nanoTime() < end) {
      assertThat(app.heldAtGate()).as("still held").isTrue();
      Thread.sleep(500);
    }
  }

  private static long number(Map<String, String> job, String field) {
    String value = job.get(field);
    return value == null ? 0 : Long.parseLong(value);
  }

  /** How long each scenario of a test took, logged at the end of the test. */
  private static final class Phases {
    private final String test;
    private final long start = System.nanoTime();
    private long last = start;
    private final Map<String, Long> millis = new LinkedHashMap<>();

    Phases(String test) {
      this.test = test;
    }

    void done(String phase) {
      long now = System.nanoTime();
      millis.put(phase, (now - last) / 1_000_000);
      last = now;
      log.info("[{}] {}: {} ms", test, phase, millis.get(phase));
    }

    void log() {
      StringBuilder text = new StringBuilder("[" + test + "] durations:");
      millis.forEach((phase, ms) -> text.append(String.format("%n  %-55s %6.1f s", phase, ms / 1000.0)));
      text.append(String.format("%n  %-55s %6.1f s", "total", (System.nanoTime() - start) / 1e9));
      log.info(text.toString());
    }
  }
}
