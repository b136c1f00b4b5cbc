package io.warmgate.bench.operator;

import static io.warmgate.bench.operator.ArgoRolloutPart.CANARY_POD_HASH;
import static io.warmgate.bench.operator.ArgoRolloutPart.STABLE_POD_HASH;

import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.WarmupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The rollout gate, with the operator running in this JVM against the real API server and Redis:
 * (1) warm criterion met → pause released, (2) a same-schema canary reaching the gate → released
 * as Skipped. Each measurement has its own Rollout, policy and cache; one unrecorded round of each
 * runs first so that class loading and JIT are not measured.
 */
final class GateBench {

  /** Results in milliseconds. */
  record Result(Samples reaction, Samples sameSchema) {}

  private static final String NAMESPACE = "gate-bench";
  private static final String STABLE_SCHEMA = "aaa111";
  private static final String CANARY_SCHEMA = "bbb222";
  private static final Duration WITHIN = Duration.ofSeconds(30);
  /** The gate re-evaluates a held canary every second. */
  private static final int GATE_INTERVAL_MS = 1_000;

  /** Fixed seed: the same delays in every run. */
  private final Random phase = new Random(42);

  private final BenchCluster cluster;
  private final OperatorBenchSettings settings;
  private final ArgoRolloutPart argo;
  private final BenchPolicies policies;

  GateBench(BenchCluster cluster, OperatorBenchSettings settings) {
    this.cluster = cluster;
    this.settings = settings;
    this.argo = new ArgoRolloutPart(cluster.client());
    this.policies = new BenchPolicies(cluster.client(), cluster.valkeyAddress());
  }

  Result run() {
    cluster.createNamespace(NAMESPACE);
    // The production defaults, except no Lease (one replica) and a free HTTP port.
    OperatorSettings operatorSettings = OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES", "127.0.0.1",
        "WARMGATE_NAMESPACES", NAMESPACE));
    Samples reaction = new Samples();
    Samples sameSchema = new Samples();
    try (WarmgateOperator operator = WarmgateOperator.start(operatorSettings, cluster.client());
        CacheAgentsPart agents = new CacheAgentsPart(cluster.redis().uri())) {
      warmCriterionToRelease(agents, "warm-warmup");
      for (int i = 0; i < settings.repetitions(); i++) {
        reaction.addNanos(warmCriterionToRelease(agents, "warm-" + i));
      }
      gateToSkip(agents, "same-warmup");
      for (int i = 0; i < settings.repetitions(); i++) {
        sameSchema.addNanos(gateToSkip(agents, "same-" + i));
      }
    }
    return new Result(reaction, sameSchema);
  }

  /**
   * Holds a canary in {@code Preload} mode one value key short of {@code minCoverage} (the
   * benchmark plays the preloading agent), writes that key at a random point
   * of the gate's one-second cycle and returns the nanoseconds from Valkey's acknowledgement of
   * it to the watch event of the release.
   */
  private long warmCriterionToRelease(CacheAgentsPart agents, String name) {
    argo.create(NAMESPACE, name, settings.pods());
    argo.canaryAtGate(NAMESPACE, name, Instant.now());
    agents.register(NAMESPACE, name, STABLE_POD_HASH, STABLE_SCHEMA, settings.pods());
    agents.register(NAMESPACE, name, CANARY_POD_HASH, CANARY_SCHEMA, settings.canaryPods());
    List<String> hot = agents.hotSet(name, settings.hotSetSize());
    int needed = (int) Math.ceil(settings.hotSetSize() * settings.minCoverage() / 100.0);
    agents.fill(name, CANARY_SCHEMA, hot.subList(0, needed - 1));
    policies.create(NAMESPACE, name, name, w -> {
      w.setMode(WarmupMode.Preload);
      w.setHotSetSize(settings.hotSetSize());
      w.setMinCoverage(settings.minCoverage());
    });
    try {
      awaitPhase(name, GatePhase.Warming);
      if (!agents.hasWarmJob(name, CANARY_SCHEMA)) {
        throw new IllegalStateException("the gate holds " + name + " in Preload mode without "
            + "having opened a warm job");
      }
      // Warming was just written by a gate pass; meet the criterion anywhere in the next cycle.
      Sleep.millis(phase.nextInt(GATE_INTERVAL_MS));
      try (ReleaseWatch watch = new ReleaseWatch(argo, NAMESPACE, name)) {
        agents.fill(name, CANARY_SCHEMA, hot.subList(needed - 1, needed));
        long met = System.nanoTime();
        return watch.awaitReleaseNanos(WITHIN) - met;
      }
    } finally {
      cleanUp(name);
    }
  }

  /**
   * Moves a same-schema canary from the step before the gate onto the gate step and returns the
   * nanoseconds from sending that status write to the watch event of the release.
   */
  private long gateToSkip(CacheAgentsPart agents, String name) {
    argo.create(NAMESPACE, name, settings.pods());
    argo.canaryBeforeGate(NAMESPACE, name);
    agents.register(NAMESPACE, name, STABLE_POD_HASH, STABLE_SCHEMA, settings.pods());
    agents.register(NAMESPACE, name, CANARY_POD_HASH, STABLE_SCHEMA, settings.canaryPods());
    policies.create(NAMESPACE, name, name, w -> { });
    try {
      awaitPhase(name, GatePhase.Waiting);
      try (ReleaseWatch watch = new ReleaseWatch(argo, NAMESPACE, name)) {
        long reached = System.nanoTime();
        argo.canaryAtGate(NAMESPACE, name, Instant.now());
        long released = watch.awaitReleaseNanos(WITHIN);
        awaitPhase(name, GatePhase.Skipped);
        return released - reached;
      }
    } finally {
      cleanUp(name);
    }
  }

  private void awaitPhase(String name, GatePhase phase) {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    GatePhase seen = null;
    while (System.nanoTime() < deadline) {
      seen = BenchPolicies.phase(policies.get(NAMESPACE, name));
      if (seen == phase) {
        return;
      }
      Sleep.millis(50);
    }
    throw new IllegalStateException("policy " + NAMESPACE + "/" + name + " did not reach gate phase "
        + phase + " within " + WITHIN + " (last seen: " + seen + "); see the operator's log");
  }

  private void cleanUp(String name) {
    policies.delete(NAMESPACE, name);
    argo.delete(NAMESPACE, name);
  }
}
