package io.warmgate.bench.release;

import io.warmgate.bench.common.Percentiles;
import io.warmgate.bench.common.ZipfIds;
import io.warmgate.bench.operator.ArgoRolloutPart;
import io.warmgate.bench.operator.BenchPolicies;
import io.warmgate.bench.operator.ReleaseWatch;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plays one release under one {@link Strategy}: an old-schema fleet of K pods serves steady
 * traffic, then new-schema pods replace it while the traffic goes on. The window ends
 * {@link ReleaseParams#windowSeconds} after the first new pod, the same for every strategy, or,
 * when that is 0, one L2 TTL after the release's own last old pod left. The gated strategies run
 * the real operator's gate on a Rollout whose status the benchmark writes as the Argo controller
 * would. With the modelled origin, the instance is ample while the old fleet fills its caches and
 * sized one L2 TTL before the release, where the steady rate is measured.
 */
final class ReleaseRun {

  /** Seconds of the timeline shown before the release starts. */
  static final int LEAD_SECONDS = 5;

  private final ReleaseEnv env;
  private final ReleaseParams p;
  private final Strategy strategy;
  private final Duration l2Ttl;
  /** A Rollout of its own per strategy: a deleted one may linger while its successor is created. */
  private final String rollout;
  private final int repetition;
  private final double nodes;

  /**
   * @param p the parameters, with the preload rate settled
   * @param repetition which repetition of {@code strategy} this is, from 0: it chooses the draws
   * @param nodes the modelled origin's nodes (ignored with the emulator)
   */
  ReleaseRun(ReleaseEnv env, ReleaseParams p, Strategy strategy, int repetition, double nodes) {
    this.env = env;
    this.p = p;
    this.strategy = strategy;
    this.repetition = repetition;
    this.nodes = nodes;
    this.l2Ttl = p.scaled(Practice.L2_TTL);
    this.rollout = "deal-service-" + strategy.letter;
  }

  /**
   * Runs the release.
   *
   * @param steady how long the old fleet serves before the release; the steady origin rate is
   *     taken over its last L2 TTL
   */
  ReleaseResult run(Duration steady) throws InterruptedException {
    env.resetKeys();
    String policy = "release-" + strategy.letter;
    if (strategy.gated()) {
      createGate(policy);
    }
    ZipfIds ids = new ZipfIds(p.deals(), p.skew(), p.seed());
    try (Fleet fleet = new Fleet(env)) {
      for (int i = 0; i < p.agents(); i++) {
        fleet.start(ReleasePod.Version.OLD);
      }
      // Every strategy of a repetition draws the same requests: their differences are theirs.
      try (Traffic traffic = new Traffic(ids, p.idsPerRequest(), p.rate(), fleet,
          p.seed() + 1_000L * repetition)) {
        if (env.modelled() != null) {
          env.modelled().ample();
          Thread.sleep(steady.minus(l2Ttl).toMillis());
          env.modelled().size(nodes);
          Thread.sleep(l2Ttl.toMillis());
        } else {
          Thread.sleep(steady.toMillis());
        }
        long t0 = System.currentTimeMillis();
        long refreshedBefore = fleet.refreshedIds();
        long pastBoundBefore = fleet.l2PastBound();
        double steadyL1 = l1HitRatio(fleet.live());
        Gate gate = release(fleet, policy, steadyL1);
        long released = System.currentTimeMillis();
        long end = p.windowSeconds() > 0 ? t0 + (long) (p.windowSeconds() * 1000)
            : released + l2Ttl.toMillis();
        Thread.sleep(Math.max(0, end - System.currentTimeMillis()));
        traffic.close();
        return measure(traffic, t0, released, end, gate, fleet.refreshedIds() - refreshedBefore,
            fleet.refreshedIds(ReleasePod.Version.NEW), fleet.l2PastBound() - pastBoundBefore);
      }
    } finally {
      if (strategy.gated()) {
        env.policies().delete(ReleaseEnv.NAMESPACE, policy);
        env.argo().delete(ReleaseEnv.NAMESPACE, rollout);
      }
    }
  }

  /**
   * What the gate did: when it released (seconds after the first new pod), its phase and
   * coverage, when the canary's agent registered, and each step as {@link GateSteps} saw it.
   */
  private record Gate(Double seconds, String phase, Double coverage, List<String> preloaded,
      Double registeredSeconds, Map<String, Double> steps) {
    static final Gate NONE = new Gate(null, null, null, List.of(), null, Map.of());
  }

  private Gate release(Fleet fleet, String policy, double steadyL1) throws InterruptedException {
    long t0 = System.nanoTime();
    List<ReleasePod> old = fleet.of(ReleasePod.Version.OLD);
    switch (strategy) {
      case ALL_AT_ONCE -> {
        fleet.replaceAll(old, ReleasePod.Version.NEW);
        return Gate.NONE;
      }
      case ONE_BY_ONE -> {
        for (ReleasePod pod : old) {
          awaitL1Warm(fleet.replace(pod, ReleasePod.Version.NEW), steadyL1);
        }
        return Gate.NONE;
      }
      case FIXED_WAIT -> {
        fleet.replace(old.get(0), ReleasePod.Version.NEW);
        Thread.sleep(p.scaled(Practice.FIXED_CANARY_WAIT).toMillis());
        fleet.replaceAll(old.subList(1, old.size()), ReleasePod.Version.NEW);
        return Gate.NONE;
      }
      case ORGANIC, PRELOAD, PRELOAD_BUDGET -> {
        ArgoRolloutPart argo = env.argo();
        ReleasePod canary;
        long releasedNanos;
        GateSteps steps;
        try (ReleaseWatch watch = new ReleaseWatch(argo, ReleaseEnv.NAMESPACE, rollout)) {
          canary = fleet.replace(old.get(0), ReleasePod.Version.NEW);
          steps = new GateSteps(env.valkey(), env.policies(), policy,
              ReleaseEnv.NAMESPACE + "/" + canary.name(), canary.keySpace());
          argo.canaryAtGate(ReleaseEnv.NAMESPACE, rollout, Instant.now());
          try {
            releasedNanos = watch.awaitReleaseNanos(p.scaled(Practice.MAX_WAIT).plusMinutes(2));
          } finally {
            steps.close();
          }
        }
        GateStatus status = gateStatus(policy);
        fleet.replaceAll(old.subList(1, old.size()), ReleasePod.Version.NEW);
        return new Gate((releasedNanos - t0) / 1e9,
            status == null || status.getPhase() == null ? "unknown" : status.getPhase().name(),
            status == null ? null : status.getCoverage(), env.warmJobIds(canary.schemaHash()),
            steps.registeredSeconds(), steps.steps());
      }
      default -> throw new IllegalStateException("unknown strategy " + strategy);
    }
  }

  /** The gate's status once it reports the release (it writes status after the patch). */
  private GateStatus gateStatus(String policy) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    GateStatus status = null;
    while (System.nanoTime() < deadline) {
      CachePolicy seen = env.policies().get(ReleaseEnv.NAMESPACE, policy);
      status = seen == null || seen.getStatus() == null ? null : seen.getStatus().getGate();
      if (status != null && status.getReleasedAt() != null) {
        return status;
      }
      Thread.sleep(50);
    }
    return status;
  }

  private void createGate(String policy) {
    ArgoRolloutPart argo = env.argo();
    argo.create(ReleaseEnv.NAMESPACE, rollout, p.agents());
    argo.allStable(ReleaseEnv.NAMESPACE, rollout);
    BenchPolicies policies = env.policies();
    policies.create(ReleaseEnv.NAMESPACE, policy, rollout, ReleaseEnv.CACHE_NAME, spec -> {
      spec.setL1Ttl(duration(p.scaled(Practice.L1_TTL)));
      spec.setL2Ttl(duration(l2Ttl));
      spec.setRefreshAhead(duration(p.scaled(Practice.REFRESH_AHEAD)));
      spec.setLockTtl(duration(Practice.lockTtl(p)));
      spec.setMaxStaleness(duration(p.scaled(Practice.MAX_STALENESS)));
    }, warmup -> {
      warmup.setMode(strategy == Strategy.ORGANIC ? WarmupMode.Organic : WarmupMode.Preload);
      if (strategy == Strategy.PRELOAD_BUDGET) {
        // The origin's recommended line, in single-row reads/s: what the gate may let it reach.
        warmup.setOriginBudget((int) SpannerCapacity.Settings.of(nodes).recommendedLine());
      }
      warmup.setHotSetSize(p.hotSetSize());
      warmup.setPreloadRate(p.preloadRate());
      warmup.setMaxWait(duration(p.scaled(Practice.MAX_WAIT)));
      // The benchmark must finish: a gate that never warms is released at maxWait and reported
      // with its phase (TimedOut), not held.
      warmup.setOnTimeout(TimeoutAction.Promote);
    });
  }

  /** A Kubernetes-style duration in whole milliseconds, as the CRD accepts. */
  private static String duration(Duration d) {
    return Math.max(1, d.toMillis()) + "ms";
  }

  /**
   * Waits until {@code pod}'s L1 answers, over the last second, at least 95 % of the share the old
   * fleet's L1 answered in steady state, or at most the practice's cap per pod.
   */
  private void awaitL1Warm(ReleasePod pod, double steadyL1) throws InterruptedException {
    long deadline = System.nanoTime() + p.scaled(Practice.POD_WARM_CAP).toNanos();
    long[] hits = new long[11];
    long[] all = new long[11];
    int tick = 0;
    while (System.nanoTime() < deadline) {
      Thread.sleep(100);
      hits[tick % 11] = pod.l1Hits();
      all[tick % 11] = pod.lookups();
      tick++;
      if (tick >= 11) {
        int oldest = tick % 11;
        int newest = (tick - 1) % 11;
        long lookups = all[newest] - all[oldest];
        if (lookups > 0 && (double) (hits[newest] - hits[oldest]) / lookups >= 0.95 * steadyL1) {
          return;
        }
      }
    }
  }

  private static double l1HitRatio(List<ReleasePod> pods) {
    long hits = pods.stream().mapToLong(ReleasePod::l1Hits).sum();
    long lookups = pods.stream().mapToLong(ReleasePod::lookups).sum();
    return lookups == 0 ? 0 : (double) hits / lookups;
  }

  private ReleaseResult measure(Traffic traffic, long t0, long released, long end, Gate gate,
      long refreshed, long refreshedByNew, long l2PastBound) {
    OriginLog origins = env.origins();
    List<OriginLog.Read> reads = origins.between(t0, end);
    long originReads = reads.stream().mapToLong(r -> r.ids().size()).sum();
    long newPodReads = reads.stream().filter(OriginLog.Read::byNewPod)
        .mapToLong(r -> r.ids().size()).sum();
    long steadyFrom = t0 - l2Ttl.toMillis();
    double steadyPerSecond = origins.idsBetween(steadyFrom, t0) / ((t0 - steadyFrom) / 1000.0);

    List<Long> timeline = new ArrayList<>();
    long peak = 0;
    // Whole seconds only: a shorter last bucket would show as a drop in the rate.
    for (long from = t0 - LEAD_SECONDS * 1000L; from + 1000 <= end; from += 1000) {
      long n = origins.idsBetween(from, from + 1000);
      timeline.add(n);
      if (from >= t0) {
        peak = Math.max(peak, n);
      }
    }

    List<Traffic.Lookup> lookups = traffic.between(t0, end);
    Set<String> requested = new HashSet<>();
    Set<String> requestedByNew = new HashSet<>();
    long failures = 0;
    long[] latencies = new long[lookups.size()];
    for (int i = 0; i < lookups.size(); i++) {
      Traffic.Lookup l = lookups.get(i);
      requested.addAll(l.ids());
      if (l.byNewPod()) {
        requestedByNew.addAll(l.ids());
      }
      if (l.failed()) {
        failures++;
      }
      latencies[i] = l.latencyMicros();
    }
    Arrays.sort(latencies);
    Set<String> preloaded = new HashSet<>(gate.preloaded());
    Set<String> union = new HashSet<>(requested);
    union.addAll(preloaded);
    Set<String> newUnion = new HashSet<>(requestedByNew);
    newUnion.addAll(preloaded);
    long wasted = preloaded.stream().filter(id -> !requestedByNew.contains(id)).count();
    long recalled = requestedByNew.stream().filter(preloaded::contains).count();
    return new ReleaseResult(strategy, originReads, refreshed, newPodReads, refreshedByNew,
        requested.size(), union.size(), preloaded.size(), wasted, requestedByNew.size(),
        newUnion.size(), recalled, origins.newVersionDuplicates(t0, end,
            l2Ttl.minus(p.scaled(Practice.REFRESH_AHEAD)).toMillis()), steadyPerSecond, peak,
        origins.meanMillisBetween(steadyFrom, t0), origins.meanMillisBetween(t0, end),
        List.copyOf(timeline), LEAD_SECONDS, lookups.size(), failures, l2PastBound,
        Percentiles.nearestRank(latencies, 0.50) / 1000.0, Percentiles.nearestRank(latencies, 0.99) / 1000.0,
        (released - t0) / 1000.0, (end - t0) / 1000.0, gate.seconds(), gate.phase(),
        gate.coverage(), gate.registeredSeconds(), gate.steps(), traffic.failureKinds(),
        originLoad(origins, steadyFrom, t0, end));
  }

  /**
   * The modelled origin's load: the CPU share its steady traffic and the window's busiest second
   * asked for (the model's cost of the queries and rows that arrived, so past 100 % when the
   * release asked for more than the nodes serve), and its refusals. Null with the emulator.
   */
  private ReleaseResult.OriginLoad originLoad(OriginLog origins, long steadyFrom, long t0,
      long end) {
    if (env.modelled() == null) {
      return null;
    }
    SpannerCapacity model = new SpannerCapacity(env.modelled().settings());
    double steady = cost(model, origins.between(steadyFrom, t0)) / ((t0 - steadyFrom) / 1000.0);
    double nodes = model.settings().nodes();
    double peak = 0;
    List<Double> timeline = new ArrayList<>();
    for (long from = t0 - LEAD_SECONDS * 1000L; from + 1000 <= end; from += 1000) {
      double cpu = cost(model, origins.between(from, from + 1000)) / nodes;
      timeline.add(cpu);
      if (from >= t0) {
        peak = Math.max(peak, cpu);
      }
    }
    return new ReleaseResult.OriginLoad(nodes, model.settings().capacity(), steady / nodes, peak,
        origins.callsBetween(t0, end), origins.failedBetween(t0, end, "DEADLINE_EXCEEDED"),
        origins.failedBetween(t0, end, "RESOURCE_EXHAUSTED"), List.copyOf(timeline));
  }

  private static double cost(SpannerCapacity model, List<OriginLog.Read> reads) {
    long rows = reads.stream().mapToLong(r -> r.ids().size()).sum();
    return model.cost(reads.size(), rows);
  }
}
