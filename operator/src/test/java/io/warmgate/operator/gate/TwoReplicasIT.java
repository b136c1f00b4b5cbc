package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two operator replicas (separate JVMs, leader election on) gate one canary; the leader is
 * SIGKILLed mid-warm. The Rollout is released exactly once, only after the canary's coverage
 * reached minCoverage, and never touched again. The test plays the Argo controller and the agents.
 */
class TwoReplicasIT {

  static final Logger log = LoggerFactory.getLogger(TwoReplicasIT.class);
  static final String STABLE_SCHEMA = "aaa111";
  static final String CANARY_SCHEMA = "bbb222";
  static final int HOT_SET = 100;
  static final int MIN_COVERAGE = 80;
  static final Duration QUIET = Duration.ofSeconds(10);
  static final String RECONCILIATIONS = "operator_sdk_reconciliations_started_total";

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @Test
  void sigkilledLeaderAndASecondReplicaNeverReleaseEarlyOrTwice() {
    KubernetesClient client = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    api.applyCrd(ApiServer.rolloutCrd());
    String ns = api.newNamespace("replicas");
    FakeAgents agents = new FakeAgents(redis.uri(), ns);
    FakeArgo argo = new FakeArgo(client, ns, "app");
    GatePolicy policy = new GatePolicy(client, ns, redis.host() + ":" + redis.port());

    try (RolloutChanges changes = RolloutChanges.watch(client, ns, "app",
            () -> agents.coverage(CANARY_SCHEMA));
        OperatorReplicas replicas = new OperatorReplicas(client, api.kubeconfig(), ns)) {
      new Policies(client).rollout(ns, "app");
      argo.holdAtGate(Instant.now());
      agents.register("app-stable-1", FakeArgo.STABLE, STABLE_SCHEMA);
      agents.register("app-canary-1", FakeArgo.CANARY, CANARY_SCHEMA);
      List<String> hot = agents.hotSet(HOT_SET);
      policy.create(w -> {
        w.setMode(WarmupMode.Preload);
        w.setHotSetSize(HOT_SET);
        w.setMinCoverage(MIN_COVERAGE);
      });

      // (1) Both replicas up, one leads; the gate opens the warm job and holds at 40 %.
      replicas.start("replica-a");
      replicas.start("replica-b");
      await().atMost(Policies.WITHIN).until(() -> replicas.holder() != null);
      String leader = replicas.holder();
      String follower = leader.equals("replica-a") ? "replica-b" : "replica-a";
      await().atMost(Policies.WITHIN).until(() -> !agents.warmJob(CANARY_SCHEMA).isEmpty());
      assertThat(agents.warmIds(CANARY_SCHEMA)).containsExactlyElementsOf(hot);
      agents.writeValues(CANARY_SCHEMA, hot.subList(0, 40));
      awaitCoverage(policy, changes, 40.0);
      assertThat(replicas.counter(leader, RECONCILIATIONS)).isPositive();
      assertThat(replicas.counter(follower, RECONCILIATIONS)).as("follower reconciliations")
          .isZero();
      assertThat(replicas.logLines(leader, "leads through Lease")).hasSize(1);
      assertThat(replicas.logLines(follower, "leads through Lease")).isEmpty();
      assertThat(replicas.logLines(follower, "is held by " + leader)).isNotEmpty();
      assertNoReleaseFor(changes, Duration.ofSeconds(4));
      assertThat(replicas.holder()).isEqualTo(leader);

      // (2) SIGKILL the leader mid-warm: the follower takes the Lease and keeps holding.
      Instant killed = Instant.now();
      replicas.kill(leader);
      await().atMost(OperatorReplicas.LEASE_DURATION.multipliedBy(3))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(() -> assertThat(replicas.holder()).isEqualTo(follower));
      Duration takeover = Duration.between(killed, Instant.now());
      assertThat(replicas.logLines(follower, "leads through Lease")).hasSize(1);
      agents.writeValues(CANARY_SCHEMA, hot.subList(40, 79));
      // The new leader measures 79 % (one id short) and must still hold.
      awaitCoverage(policy, changes, 79.0);
      assertNoReleaseFor(changes, Duration.ofSeconds(3));
      assertThat(policy.gate().getPhase()).isEqualTo(GatePhase.Warming);

      // (3) The last id brings coverage to minCoverage: exactly one release, after it.
      Instant fillStarted = Instant.now();
      agents.writeValues(CANARY_SCHEMA, hot.subList(79, 80));
      await().atMost(Policies.WITHIN).pollInterval(Duration.ofMillis(20))
          .until(() -> !changes.releases().isEmpty());
      RolloutChanges.Release release = changes.releases().get(0);
      Duration latency = Duration.between(fillStarted, release.at());
      assertThat(release.at()).as("release seen after the last key was written")
          .isAfter(fillStarted);
      assertThat(release.coverage()).as("coverage in Valkey at the release")
          .isGreaterThanOrEqualTo(MIN_COVERAGE);
      GateStatus promoted = policy.awaitPhase(GatePhase.Promoted);
      assertThat(promoted.getCoverage()).isEqualTo(80.0);
      await().during(QUIET).atMost(QUIET.plusSeconds(3)).untilAsserted(() -> {
        assertThat(changes.releases()).as("releases").hasSize(1);
        assertThat(changes.changesAfter(release.at())).as("Rollout changes after the release")
            .isEmpty();
        assertThat(changes.aborted()).as("abort set").isFalse();
      });
      assertThat(changes.broken()).as("the watch ended early; changes may be missed").isFalse();
      assertThat(FakeArgo.paused(argo.rollout())).isFalse();
      assertThat(rolloutEvents(client, ns, "CoverageReached")).as("release Events").hasSize(1);
      assertThat(replicas.logLines(follower, "Rollout " + ns + "/app: released")).hasSize(1);
      assertThat(replicas.logLines(leader, "Rollout " + ns + "/app: released")).isEmpty();

      log.info("Lease takeover after SIGKILL of {}: {} ms (lease duration {} s); "
              + "release {} ms after coverage reached {} %",
          leader, takeover.toMillis(), OperatorReplicas.LEASE_DURATION.toSeconds(),
          latency.toMillis(), MIN_COVERAGE);
    }
  }

  /** Waits until the leader has written {@code percent} as the gate's coverage. */
  static void awaitCoverage(GatePolicy policy, RolloutChanges changes, double percent) {
    await().atMost(Policies.WITHIN).untilAsserted(() -> {
      assertThat(changes.releases()).as("releases while coverage < %d %%", MIN_COVERAGE)
          .isEmpty();
      GateStatus gate = policy.gate();
      assertThat(gate.getPhase()).as("phase (%s)", gate.getMessage()).isEqualTo(GatePhase.Warming);
      assertThat(gate.getCoverage()).isEqualTo(percent);
    });
  }

  static void assertNoReleaseFor(RolloutChanges changes, Duration duration) {
    await().during(duration).atMost(duration.plusSeconds(2)).untilAsserted(() -> {
      assertThat(changes.releases()).as("releases while coverage < %d %%", MIN_COVERAGE)
          .isEmpty();
      assertThat(changes.aborted()).as("abort set").isFalse();
    });
  }

  static List<Event> rolloutEvents(KubernetesClient client, String ns, String reason) {
    return client.v1().events().inNamespace(ns).list().getItems().stream()
        .filter(e -> "Rollout".equals(e.getInvolvedObject().getKind())
            && reason.equals(e.getReason()))
        .toList();
  }
}
