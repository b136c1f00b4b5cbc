package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceRole;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.testing.ArgoRollouts;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rollout gate against a real API server with the Argo Rollouts CRDs and a real Redis. The
 * test plays the Argo controller (it writes the Rollout's status through the status subresource)
 * and the cache agents (it writes registry, hot-set, stats and value keys per
 * docs/valkey-layout.md).
 */
class RolloutGateIT {

  static final Logger log = LoggerFactory.getLogger(RolloutGateIT.class);
  static final String STABLE = FakeArgo.STABLE;
  static final String CANARY = FakeArgo.CANARY;
  /** The gate reacts within one gate interval (1 s) plus a reconciliation. */
  static final Duration REACTION = Duration.ofSeconds(2);

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  static Policies policies;
  static KubernetesClient client;

  String ns;
  FakeAgents agents;
  FakeArgo argo;
  GatePolicy policy;

  @BeforeAll
  static void clients() {
    client = api.client();
    policies = operator.policies();
  }

  @BeforeEach
  void namespace() {
    ns = api.newNamespace("gate");
    agents = new FakeAgents(redis.uri(), ns, ns);
    argo = new FakeArgo(client, ns, "app");
    policy = new GatePolicy(client, ns, redis.host() + ":" + redis.port());
  }

  @Test
  void sameSchemaIsReleasedAtOnceAsSkipped() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "aaa111");

    policy.create(w -> { });

    awaitReleased();
    GateStatus gate = policy.awaitPhase(GatePhase.Skipped);
    assertThat(gate.getCanaryPodHash()).isEqualTo(CANARY);
    assertThat(gate.getStableSchemaHash()).isEqualTo("aaa111");
    assertThat(gate.getCanarySchemaHash()).isEqualTo("aaa111");
    assertThat(gate.getReleasedAt()).isNotNull();
    assertThat(gate.getMessage()).isEqualTo("skipped: schema unchanged (aaa111)");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "SchemaUnchanged");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "SchemaUnchanged");
    awaitEventOnBoth("SchemaUnchanged", "skipped: schema unchanged (aaa111)");
  }

  @Test
  void newSchemaIsHeldUntilCoveredThenPromoted() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    List<String> hot = agents.hotSet(100);
    agents.writeValues("bbb222", hot.subList(0, 50));

    policy.create(w -> { });

    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "False", "Warming");
    GateStatus held = policy.awaitPhase(GatePhase.Warming);
    assertThat(held.getCoverage()).isEqualTo(50.0);
    assertThat(held.getTarget()).isEqualTo(80);
    assertThat(held.getStableSchemaHash()).isEqualTo("aaa111");
    assertThat(held.getCanarySchemaHash()).isEqualTo("bbb222");
    assertThat(held.getStartedAt()).isNotNull();
    assertThat(held.getMessage()).startsWith("held: warming 50/100 keys");
    awaitEventOnBoth("Warming", "held: warming 50/100 keys");
    assertThat(policy.keySpaces()).extracting(KeySpaceStatus::getSchemaHash,
            KeySpaceStatus::getRole, KeySpaceStatus::getAgents)
        .containsExactly(tuple("aaa111", KeySpaceRole.Stable, 1),
            tuple("bbb222", KeySpaceRole.Canary, 1));
    assertStillHeldFor(Duration.ofSeconds(3));

    agents.writeValues("bbb222", hot.subList(50, 80));
    Instant warm = Instant.now();
    awaitReleased();
    Duration reaction = Duration.between(warm, Instant.now());
    log.info("Gate reaction, last key written to pauseConditions cleared: {} ms",
        reaction.toMillis());
    assertThat(reaction).isLessThanOrEqualTo(REACTION);

    GateStatus released = policy.awaitPhase(GatePhase.Promoted);
    assertThat(released.getCoverage()).isEqualTo(80.0);
    assertThat(released.getReleasedAt()).isNotNull();
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "CoverageReached");
    awaitEventOnBoth("CoverageReached", "released after");
  }

  /**
   * Issue 28 item 5: releasing the gate's pause must not approve an inconclusive analysis. The
   * test writes the status Argo Rollouts writes when an analysis is inconclusive at the gate step
   * (a second pause condition, InconclusiveAnalysisRun).
   */
  @Test
  void aWarmCanaryAlsoPausedByAnInconclusiveAnalysisStaysHeldUntilOnlyTheGatesPauseRemains() {
    policies.rollout(ns, "app");
    String pausedAt = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    Map<String, Object> status = new HashMap<>();
    status.put("currentPodHash", CANARY);
    status.put("stableRS", STABLE);
    status.put("currentStepIndex", 1);
    status.put("controllerPause", true);
    status.put("pauseConditions", List.of(
        Map.of("reason", "CanaryPauseStep", "startTime", pausedAt),
        Map.of("reason", "InconclusiveAnalysisRun", "startTime", pausedAt)));
    argo.setStatus(status);
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.writeValues("bbb222", agents.hotSet(10));

    policy.create(w -> { });

    Condition held = policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True",
        "PausedForAnotherReason");
    assertThat(held.getMessage()).contains("InconclusiveAnalysisRun");
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat((List<?>) argo.status().get("pauseConditions")).as("pauseConditions")
            .hasSize(2));

    // The analysis is resolved (Argo drops its pause condition): the gate releases its own.
    status.put("pauseConditions", List.of(
        Map.of("reason", "CanaryPauseStep", "startTime", pausedAt)));
    argo.setStatus(status);
    awaitReleased();
    assertThat(argo.status().get("controllerPause")).isEqualTo(true);
    policy.awaitPhase(GatePhase.Promoted);
  }

  /** Issue 13 item 5: Warmed names its canary and does not outlive it. */
  @Test
  void warmedNamesItsCanaryAndANewRevisionResetsIt() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.writeValues("bbb222", agents.hotSet(10));
    policy.create(w -> { });

    awaitReleased();
    GateStatus released = policy.awaitPhase(GatePhase.Promoted);
    assertThat(released.getReleasedCoverage()).isEqualTo(100.0);
    assertThat(released.getRolloutGeneration())
        .isEqualTo(argo.rollout().getMetadata().getGeneration());
    Condition warmed =
        policies.awaitCondition(ns, "deals", Conditions.WARMED, "True", "CoverageReached");
    assertThat(warmed.getMessage()).startsWith("canary " + CANARY + ": released after")
        .contains("coverage 100.0% (10/10 keys) of 80% needed");
    awaitEventOnBoth("CoverageReached", "coverage 100.0% (10/10 keys) of 80% needed");

    // Argo finishes the rollout: the canary is stable, Warmed still speaks about it.
    long generation = argo.rollout().getMetadata().getGeneration();
    argo.setStatus(statusOf(CANARY, CANARY, 2, generation));
    policy.awaitPhase(GatePhase.Promoted);
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).untilAsserted(() ->
        assertThat(policies.condition(ns, "deals", Conditions.WARMED).orElseThrow().getStatus())
            .isEqualTo("True"));

    // A new revision: before Argo observes it, Warmed is no longer True.
    client.genericKubernetesResources(ArgoRollouts.ROLLOUTS)
        .inNamespace(ns).withName("app").edit(r -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> spec = (Map<String, Object>) r.getAdditionalProperties().get("spec");
          spec.put("minReadySeconds", 1);
          return r;
        });
    assertThat(argo.rollout().getMetadata().getGeneration()).isGreaterThan(generation);
    Condition pending = policies.awaitCondition(ns, "deals", Conditions.WARMED, "Unknown",
        "RevisionPending");
    assertThat(pending.getMessage()).contains("not observed by Argo Rollouts yet");

    // Argo starts the new canary: the gate status names it, Warmed stays not True.
    String next = "9a8b7c6d5";
    argo.setStatus(statusOf(next, CANARY, 0, argo.rollout().getMetadata().getGeneration()));
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "Unknown", "BeforeGateStep");
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      assertThat(policy.gate().getCanaryPodHash()).isEqualTo(next);
      assertThat(policy.gate().getReleasedCoverage()).isNull();
    });
  }

  private static Map<String, Object> statusOf(String current, String stable, int step,
      long observedGeneration) {
    Map<String, Object> status = new java.util.HashMap<>();
    status.put("currentPodHash", current);
    status.put("stableRS", stable);
    status.put("currentStepIndex", step);
    status.put("pauseConditions", null);
    status.put("observedGeneration", String.valueOf(observedGeneration));
    return status;
  }

  /**
   * Issue 13 items 6 and 10: a finalizer only while a canary is held; deleting the policy then
   * leaves the canary held, with an annotation and an Event on the Rollout saying what to do.
   */
  @Test
  void deletingAPolicyThatHoldsACanaryLeavesItHeldAndSaysWhatToDo() {
    policies.rollout(ns, "app");
    agents.register("app-stable-1", STABLE, "aaa111");
    argo.setStatus(Map.of("currentPodHash", STABLE, "stableRS", STABLE, "currentStepIndex", 2));
    policy.create(w -> { });
    policy.awaitPhase(GatePhase.Idle);
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).untilAsserted(() ->
        assertThat(policies.get(ns, "deals").getMetadata().getFinalizers()).isNullOrEmpty());

    argo.holdAtGate(Instant.now());
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.hotSet(10);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policies.get(ns, "deals").getMetadata().getFinalizers())
            .containsExactly("warmgate.io/held-canary"));

    client.resources(io.warmgate.operator.model.CachePolicy.class).inNamespace(ns)
        .withName("deals").delete();

    await().atMost(Policies.WITHIN).until(() -> policies.get(ns, "deals") == null);
    assertThat(argo.status().get("pauseConditions")).as("still held").isNotNull();
    assertThat(argo.rollout().getMetadata().getAnnotations())
        .hasEntrySatisfying("warmgate.io/gate-deleted", text -> assertThat(text)
            .contains("CachePolicy " + ns + "/deals was deleted")
            .contains("while holding canary " + CANARY)
            .contains("kubectl argo rollouts promote app -n " + ns)
            .contains("kubectl argo rollouts abort app -n " + ns));
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(eventsOn("Rollout", "app")).anySatisfy(e -> {
          assertThat(e.getReason()).isEqualTo("CachePolicyDeleted");
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getMessage()).contains("kubectl argo rollouts promote app");
        }));
    assertStillHeldFor(Duration.ofSeconds(2));

    // A new policy gates the Rollout again: the annotation goes.
    policy.create(w -> { });
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(argo.rollout().getMetadata().getAnnotations())
            .doesNotContainKey("warmgate.io/gate-deleted"));
  }

  /**
   * A canary promoted by hand while held: the gate lets it go, says so and stops holding (no
   * RolloutHeld=True, no finalizer), also once the canary is stable.
   */
  @Test
  void canaryPromotedByHandWhileWarmingIsReportedAndNoLongerHeld() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.hotSet(10);
    policy.create(w -> { });
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    awaitFinalizers("warmgate.io/held-canary");

    promoteByHand();

    awaitPromotedByHand();
    awaitFinalizers();
    argo.setStatus(Map.of("currentPodHash", CANARY, "stableRS", CANARY, "currentStepIndex", 3));
    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(policy.keySpaces())
        .extracting(KeySpaceStatus::getSchemaHash, KeySpaceStatus::getRole)
        .contains(tuple("bbb222", KeySpaceRole.Stable)));
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "PassedGate");
    GateStatus stable = policy.gate();
    assertThat(stable.getPhase()).isEqualTo(GatePhase.Promoted);
    assertThat(stable.getMessage()).contains("without the gate releasing it");
    assertThat(stable.getReleasedAt()).isNull();
  }

  /**
   * A canary held by onTimeout Hold (TimedOut, still held) that a person promotes or aborts, as
   * the hold's message asks: reported as the person's act, and no longer held.
   */
  @Test
  void canaryHeldByOnTimeoutHoldThenPromotedOrAbortedByHandIsNoLongerHeld() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now().minus(Duration.ofMinutes(2)));
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.hotSet(10);
    policy.create(w -> w.setMaxWait("1m"));
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "TimedOut");
    assertThat(policy.gate().getMessage()).startsWith("held by onTimeout Hold");
    awaitFinalizers("warmgate.io/held-canary");

    Map<String, Object> abort = new HashMap<>();
    abort.put("abort", true);
    argo.setStatus(abort);

    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "RolloutAborted");
    GateStatus aborted = policy.awaitPhase(GatePhase.Aborted);
    assertThat(aborted.getMessage()).isEqualTo("canary " + CANARY + " was aborted");
    awaitFinalizers();

    // Retried: held by onTimeout Hold again (the pause began over maxWait ago), then promoted.
    abort.put("abort", false);
    argo.setStatus(abort);
    argo.holdAtGate(Instant.now().minus(Duration.ofMinutes(2)));
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "TimedOut");
    promoteByHand();
    awaitPromotedByHand();
    awaitFinalizers();
  }

  /** What {@code kubectl argo rollouts promote} and then the controller do to a held canary. */
  void promoteByHand() {
    Map<String, Object> promoted = new HashMap<>();
    promoted.put("pauseConditions", null);
    promoted.put("controllerPause", false);
    promoted.put("currentStepIndex", 2);
    argo.setStatus(promoted);
  }

  void awaitPromotedByHand() {
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "PassedGate");
    GateStatus promoted = policy.awaitPhase(GatePhase.Promoted);
    assertThat(promoted.getMessage()).contains("without the gate releasing it");
    assertThat(promoted.getReleasedAt()).isNull();
  }

  void awaitFinalizers(String... finalizers) {
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(Optional.ofNullable(policies.get(ns, "deals").getMetadata().getFinalizers())
            .orElse(List.of())).containsExactly(finalizers));
  }

  /** Issue 13 item 4: two policies on one Rollout; the older gates it, the newer does not act. */
  @Test
  void aSecondPolicyOnTheSameRolloutIsAConflictAndDoesNotAct() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    List<String> hot = agents.hotSet(10);
    policy.create(w -> { });
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    policies.awaitCondition(ns, "deals", Conditions.CONFLICT, "False", "SolePolicy");

    policies.policy(ns, "deals-newer", io.warmgate.operator.model.TargetKind.Rollout, "app",
        redis.host() + ":" + redis.port(), null);

    Condition conflict = policies.awaitCondition(ns, "deals-newer", Conditions.CONFLICT, "True",
        "GatedByAnotherPolicy");
    assertThat(conflict.getMessage()).contains("CachePolicy " + ns + "/deals targets Rollout "
        + ns + "/app too and is older");
    policies.awaitCondition(ns, "deals-newer", Conditions.ROLLOUT_HELD, "False",
        "GatedByAnotherPolicy");
    assertThat(policies.get(ns, "deals-newer").getStatus().getGate()).isNull();
    policies.awaitCondition(ns, "deals", Conditions.CONFLICT, "False", "SolePolicy");

    agents.writeValues("bbb222", hot);
    awaitReleased();
    policy.awaitPhase(GatePhase.Promoted);
    assertThat(eventsOn("Rollout", "app")).filteredOn(e -> "CoverageReached".equals(e.getReason()))
        .hasSize(1);
  }

  /** Issue 13 item 11: the canary's pods tell "not injected" from "starting" from "failing". */
  @Test
  void canaryWithoutAgentsSaysWhyFromItsPods() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now().minus(Duration.ofMinutes(2)));
    agents.register("app-stable-1", STABLE, "aaa111");
    canaryPod("app-canary-plain", false);

    policy.create(w -> w.setOnTimeout(TimeoutAction.Promote));

    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "AgentNotInjected");
    awaitEventOnBoth("AgentNotInjected", "none of the 1 canary pods " + CANARY
        + " has the WARMGATE_* variables");
    assertThat(policy.gate().getPhase()).isEqualTo(GatePhase.Waiting);

    client.pods().inNamespace(ns).withName("app-canary-plain").delete();
    Pod injected = canaryPod("app-canary-1", true);
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "WaitingForAgents");
    assertThat(policy.gate().getMessage()).contains("1 of 1 pods injected, none Ready yet");

    injected.setStatus(new PodStatusBuilder().addNewCondition().withType("Ready")
        .withStatus("True").endCondition().build());
    client.pods().inNamespace(ns).resource(injected).updateStatus();
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "AgentNotRegistered");
    awaitEventOnBoth("AgentNotRegistered", "1 of 1 canary pods " + CANARY
        + " are injected and Ready but no agent registered");
    assertStillHeldFor(Duration.ofSeconds(2));

    agents.register("app-canary-1", CANARY, "aaa111");
    awaitReleased();
    policy.awaitPhase(GatePhase.Skipped);
  }

  /** A pod of the canary ReplicaSet, with the injected variables or without. */
  Pod canaryPod(String name, boolean injected) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(name)
        .addToLabels("app", "app").addToLabels("rollouts-pod-template-hash", CANARY)
        .endMetadata().withNewSpec().addNewContainer().withName("app")
        .withImage("registry.invalid/app:1").endContainer().endSpec();
    if (injected) {
      pod.editSpec().editFirstContainer().addNewEnv().withName("WARMGATE_CACHE_NAME")
          .withValue(ns).endEnv().endContainer().endSpec();
    }
    return client.pods().inNamespace(ns).resource(pod.build()).create();
  }

  /** Issue 13 item 3: Valkey unreachable does not hold past maxWait. */
  @Test
  void unreachableValkeyPastMaxWaitAppliesOnTimeoutPromote() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now().minus(Duration.ofMinutes(2)));
    redis.stop();
    try {
      policy.create(w -> {
        w.setMaxWait("1m");
        w.setOnTimeout(TimeoutAction.Promote);
      });

      awaitReleased();
      GateStatus gate = policy.awaitPhase(GatePhase.TimedOut);
      assertThat(gate.getMessage()).contains("released by onTimeout Promote")
          .contains("Valkey cannot be read");
      policies.awaitCondition(ns, "deals", Conditions.WARMED, "False", "TimedOut");
      awaitEventOnBoth("TimedOut", "released by onTimeout Promote: Valkey cannot be read");
    } finally {
      redis.start();
    }
  }

  @Test
  void maxWaitWithOnTimeoutAbortAbortsAsTimedOut() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now().minus(Duration.ofMinutes(2)));
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.hotSet(10);

    policy.create(w -> {
      w.setMaxWait("1m");
      w.setOnTimeout(TimeoutAction.Abort);
    });

    await().atMost(Policies.WITHIN).until(() -> Boolean.TRUE.equals(argo.status().get("abort")));
    assertThat(argo.status().get("pauseConditions")).isNotNull();
    GateStatus gate = policy.awaitPhase(GatePhase.TimedOut);
    assertThat(gate.getMessage()).contains("aborted by onTimeout Abort").contains("not warm");
    policies.awaitCondition(ns, "deals", Conditions.WARMED, "False", "TimedOut");
    awaitEventOnBoth("TimedOut", "aborted by onTimeout Abort");
    assertThat(eventsOn("Rollout", "app")).filteredOn(e -> "TimedOut".equals(e.getReason()))
        .extracting(Event::getType).containsOnly("Warning");
  }

  @Test
  void rolloutNotAtTheGateStepIsUntouched() {
    policies.rollout(ns, "app");
    argo.setStatus(Map.of("currentPodHash", CANARY, "stableRS", STABLE, "currentStepIndex", 0));
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "aaa111");

    policy.create(w -> { });

    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "False", "BeforeGateStep");
    assertThat(policy.gate().getPhase()).isEqualTo(GatePhase.Waiting);
    String version = argo.rollout().getMetadata().getResourceVersion();
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(argo.rollout().getMetadata().getResourceVersion()).isEqualTo(version));
    assertThat(eventsOn("Rollout", "app")).isEmpty();
  }

  @Test
  void operatorRestartMidWarmDoesNotReleaseEarly() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    List<String> hot = agents.hotSet(100);
    agents.writeValues("bbb222", hot.subList(0, 40));
    policy.create(w -> { });
    policies.awaitCondition(ns, "deals", Conditions.ROLLOUT_HELD, "True", "Warming");
    int heldEvents = eventsOn("Rollout", "app").size();

    operator.restart();

    assertStillHeldFor(Duration.ofSeconds(4));
    assertThat(policy.gate().getPhase()).isEqualTo(GatePhase.Warming);
    assertThat(eventsOn("Rollout", "app")).hasSize(heldEvents);

    agents.writeValues("bbb222", hot.subList(40, 100));
    awaitReleased();
    policy.awaitPhase(GatePhase.Promoted);
  }

  @Test
  void preloadOpensOneWarmJobAndNeverResetsIt() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    List<String> hot = agents.hotSet(30);

    policy.create(w -> {
      w.setMode(WarmupMode.Preload);
      w.setHotSetSize(20);
      w.setPreloadRate(50);
    });

    await().atMost(Policies.WITHIN).until(() -> !agents.warmJob("bbb222").isEmpty());
    Map<String, String> job = agents.warmJob("bbb222");
    assertThat(job).containsEntry("state", "Open").containsEntry("target", "20")
        .containsEntry("rate", "50").containsEntry("filled", "0").containsEntry("cursor", "0")
        .containsKeys("batchSize", "createdAt", "updatedAt");
    assertThat(agents.warmIds("bbb222")).containsExactlyElementsOf(hot.subList(0, 20));

    agents.updateWarmJob("bbb222", Map.of("state", "Running", "filled", "10", "cursor", "10"));
    agents.writeValues("bbb222", hot.subList(0, 10));
    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policy.gate().getMessage()).contains("warm job Running 10/20 loaded"));
    assertThat(agents.warmJob("bbb222")).containsEntry("filled", "10");
    assertStillHeldFor(Duration.ofSeconds(2));
    // While held, the gate keeps asking the agents to keep the job's ids warm.
    assertThat(agents.warmJob("bbb222")).containsEntry("revision", CANARY);
    long keepWarm = Long.parseLong(agents.warmJob("bbb222").get("keepWarmUntil"));
    await().atMost(Policies.WITHIN).until(() ->
        Long.parseLong(agents.warmJob("bbb222").get("keepWarmUntil")) > keepWarm);

    agents.updateWarmJob("bbb222", Map.of("state", "Done", "filled", "20", "cursor", "20"));
    agents.writeValues("bbb222", hot.subList(10, 20));
    long beforeRelease = System.currentTimeMillis();
    awaitReleased();
    policy.awaitPhase(GatePhase.Promoted);
    assertThat(agents.warmJob("bbb222")).containsEntry("state", "Done")
        .containsEntry("filled", "20");
    // Released: the canary's own traffic keeps its keys now, so keep-warm ends at once.
    assertThat(Long.parseLong(agents.warmJob("bbb222").get("keepWarmUntil")))
        .isBetween(beforeRelease - 1_000, System.currentTimeMillis());
  }

  @Test
  void aWarmJobOfAnotherRevisionIsReplacedByAFreshOne() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    List<String> hot = agents.hotSet(30);
    // An earlier canary revision with the same schema finished its job; its values may be gone.
    agents.updateWarmJob("bbb222", Map.of("state", "Done", "target", "20", "filled", "20",
        "cursor", "20", "rate", "50", "batchSize", "20", "revision", "0ld0ld0ld"));

    policy.create(w -> {
      w.setMode(WarmupMode.Preload);
      w.setHotSetSize(20);
      w.setPreloadRate(50);
    });

    await().atMost(Policies.WITHIN).untilAsserted(() -> assertThat(agents.warmJob("bbb222"))
        .containsEntry("revision", CANARY).containsEntry("state", "Open")
        .containsEntry("filled", "0"));
    assertThat(agents.warmIds("bbb222")).containsExactlyElementsOf(hot.subList(0, 20));
    assertStillHeldFor(Duration.ofSeconds(2));
  }

  @Test
  void hitRatioCriterionHoldsUntilReached() {
    policies.rollout(ns, "app");
    argo.holdAtGate(Instant.now());
    agents.register("app-stable-1", STABLE, "aaa111");
    agents.register("app-canary-1", CANARY, "bbb222");
    agents.writeValues("bbb222", agents.hotSet(10));
    agents.stats("bbb222", 10, 10, 80);

    policy.create(w -> {
      w.setMinHitRatio(50);
      w.setHitRatioWindow("30s");
    });

    await().atMost(Policies.WITHIN).untilAsserted(() ->
        assertThat(policy.gate().getMessage()).contains("hit ratio 20.0% of 50% needed"));
    assertStillHeldFor(Duration.ofSeconds(2));

    agents.stats("bbb222", 200, 100, 0);
    awaitReleased();
    policy.awaitPhase(GatePhase.Promoted);
  }

  void awaitReleased() {
    await().atMost(Policies.WITHIN).pollInterval(Duration.ofMillis(50))
        .until(() -> argo.status().get("pauseConditions") == null);
    assertThat(argo.status().get("abort")).isNull();
  }

  void assertStillHeldFor(Duration duration) {
    await().during(duration).atMost(duration.plusSeconds(2)).untilAsserted(() ->
        assertThat(argo.status().get("pauseConditions")).as("pauseConditions").isNotNull());
  }

  List<Event> eventsOn(String kind, String name) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> kind.equals(e.getInvolvedObject().getKind())
            && name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  void awaitEventOnBoth(String reason, String messagePart) {
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      for (List<Event> events : List.of(eventsOn("Rollout", "app"),
          eventsOn("CachePolicy", "deals"))) {
        assertThat(events).anySatisfy(e -> {
          assertThat(e.getReason()).isEqualTo(reason);
          assertThat(e.getMessage()).contains(messagePart);
        });
      }
    });
  }
}
