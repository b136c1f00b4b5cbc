package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisException;
import io.warmgate.contract.Durations;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.revision.NewPods;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate's first step: reads the Rollout, the policy's recorded status, Valkey (agents, key
 * spaces, coverage, hit ratio, warm job, forecast) and, when no agent of the canary registered,
 * its pods, into one {@link GateObservation}. Valkey failing is an observation
 * ({@link GateInputs.Observed#unreachable}), never an exception.
 *
 * <p>Reading a held canary's warm job includes its upkeep, because what the decision sees depends
 * on it: a job of another canary revision is discarded (this canary gets a fresh one), a live one
 * is kept warm and its preload ceiling set from the forecast.
 */
final class GateObserver {

  /**
   * Upper bound for one pipelined batch of Valkey replies; each command is also bounded by the
   * client's own command timeout ({@code WARMGATE_VALKEY_TIMEOUT}).
   */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
  /** Window of the namespaces' hit ratio when the policy sets no {@code hitRatioWindow}. */
  static final Duration DEFAULT_RATIO_WINDOW = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(GateObserver.class);

  private final Clock clock;
  private final Duration agentGrace;

  GateObserver(Clock clock, Duration agentGrace) {
    this.clock = clock;
    this.agentGrace = agentGrace;
  }

  /** The policy's {@code l2Ttl}: how long a preloaded value lives, the hot set's forecast window. */
  static Duration l2Ttl(CachePolicy policy) {
    String l2Ttl = policy.getSpec().getL2Ttl();
    return Durations.parse(l2Ttl != null ? l2Ttl : new CachePolicySpec().getL2Ttl());
  }

  /**
   * @param valkey the policy's Valkey connection, or null when Valkey is not usable
   * @param valkeyProblem why Valkey is not usable (when {@code valkey} is null)
   */
  GateObservation observe(KubernetesClient client, CachePolicy policy,
      GenericKubernetesResource rollout, ValkeyCommands valkey, String valkeyProblem) {
    Instant now = clock.instant();
    WarmupSpec spec = policy.getSpec().getWarmup();
    GateInputs.Warmup warmup = GateInputs.Warmup.of(spec);
    RolloutView view = RolloutView.of(rollout);
    GateStep step = GateStep.resolve(view.steps(), spec == null ? null : spec.getGateStep());
    CachePolicyStatus recorded = recorded(client, policy, view, step);
    ControlKeys keys = new ControlKeys(policy.getSpec().getCacheName());

    Read read = read(policy, view, warmup, keys, valkey, valkeyProblem, now,
        heldAtGate(view, step), true);
    List<GateObservation.KeySpace> keySpaces = read.keySpaces();
    GateInputs.Observed observed = read.observed();
    // No agent of the canary: its pods tell why (not injected, starting, or failing).
    CanaryPods pods = observed.reachable() && observed.canarySchemas().isEmpty()
        && view.canaryInProgress() && view.canaryPauseStart().isPresent()
        ? CanaryPods.read(client, view.namespace(), view.currentPodHash()) : null;
    GateInputs inputs = new GateInputs(view, step, warmup,
        RecordedGate.previousPhase(recorded, view), RecordedGate.holding(recorded, view),
        observed, now, agentGrace, pods);
    return new GateObservation(policy, rollout, recorded, inputs, keySpaces, valkey, keys);
  }

  /**
   * Reads Valkey about {@code pods}, the new pods of the policy's workload that something other
   * than a pause step holds (an Argo analysis, Flagger): the same observation as for a held
   * canary, for {@link GateDecision#warmth}. Valkey failing is an observation, as above.
   *
   * @param upkeep whether to keep the new pods' warm job as a held canary's is kept (discard one
   *     of another revision, keep it warm, set its preload ceiling): the reconciler's pass does,
   *     a read-only reader does not, and then sees a job of another revision as none
   */
  GateObservation observeNewPods(KubernetesClient client, CachePolicy policy, NewPods pods,
      ValkeyCommands valkey, String valkeyProblem, boolean upkeep) {
    Instant now = clock.instant();
    GateInputs.Warmup warmup = GateInputs.Warmup.of(policy.getSpec().getWarmup());
    RolloutView view = RolloutView.ofNewPods(pods, policy.getSpec().getTargetRef().getName());
    ControlKeys keys = new ControlKeys(policy.getSpec().getCacheName());
    Read read = read(policy, view, warmup, keys, valkey, valkeyProblem, now, pods.inProgress(),
        upkeep);
    List<GateObservation.KeySpace> keySpaces = read.keySpaces();
    GateInputs.Observed observed = read.observed();
    CanaryPods canaryPods = observed.reachable() && observed.canarySchemas().isEmpty()
        && pods.inProgress()
        ? CanaryPods.read(client, pods.namespace(), pods.podHashLabel(), pods.newPodHash())
        : null;
    CachePolicyStatus recorded = policy.getStatus() == null ? new CachePolicyStatus()
        : policy.getStatus();
    GateInputs inputs = new GateInputs(view, new GateStep(-1, "not a pause-step gate"), warmup,
        null, false, observed, now, agentGrace, canaryPods);
    return new GateObservation(policy, null, recorded, inputs, keySpaces, valkey, keys);
  }

  /** What one pass read of Valkey: the live key spaces (null when unread) and the observation. */
  private record Read(List<GateObservation.KeySpace> keySpaces, GateInputs.Observed observed) {}

  /**
   * Reads the agents and key spaces of {@code view}'s pods; Valkey failing, or unusable
   * ({@code valkey} null, for {@code valkeyProblem}), is an observation.
   *
   * @param measure whether the new pods are at the moment the criterion is measured
   * @param upkeep whether to keep their warm job (see {@link #observeNewPods})
   */
  private static Read read(CachePolicy policy, RolloutView view, GateInputs.Warmup warmup,
      ControlKeys keys, ValkeyCommands valkey, String valkeyProblem, Instant now, boolean measure,
      boolean upkeep) {
    if (valkey == null) {
      return new Read(null, GateInputs.Observed.unreachable(valkeyProblem));
    }
    try {
      ValkeyReading reading = new ValkeyReading(valkey, keys, AgentRegistry.live(valkey.sync(),
          keys, policy.getMetadata().getNamespace(), now), view, warmup, l2Ttl(policy), now);
      return new Read(reading.keySpaces(), reading.observed(measure, upkeep));
    } catch (RedisException e) {
      log.debug("Reading Valkey for CachePolicy {}/{} failed",
          policy.getMetadata().getNamespace(), policy.getMetadata().getName(), e);
      return new Read(null, GateInputs.Observed.unreachable(String.valueOf(e.getMessage())));
    }
  }

  /** Whether the Rollout is held at its gate step: the pause style's moment to measure. */
  private static boolean heldAtGate(RolloutView view, GateStep step) {
    return view.canaryInProgress() && !view.abort() && step.found()
        && Objects.equals(view.currentStepIndex(), step.index())
        && view.canaryPauseStart().isPresent();
  }

  /**
   * The policy's status; read from the API server when the Rollout may have been released or
   * aborted by this operator an instant ago, which the informer's copy may not show yet.
   */
  private static CachePolicyStatus recorded(KubernetesClient client, CachePolicy policy,
      RolloutView view, GateStep step) {
    CachePolicyStatus status = policy.getStatus() == null ? new CachePolicyStatus()
        : policy.getStatus();
    if (maybeActedOn(view, step) && !RecordedGate.doneWith(status, view)) {
      CachePolicy fresh = client.resources(CachePolicy.class)
          .inNamespace(policy.getMetadata().getNamespace())
          .withName(policy.getMetadata().getName()).get();
      if (fresh != null && fresh.getStatus() != null) {
        return fresh.getStatus();
      }
    }
    return status;
  }

  /**
   * Aborted, or at or past the gate step without a pause (released, the controller not yet moved
   * on): states the gate's own patches lead to.
   */
  private static boolean maybeActedOn(RolloutView view, GateStep step) {
    return view.canaryInProgress() && (view.abort() || step.found()
        && view.currentStepIndex() != null && view.currentStepIndex() >= step.index()
        && view.canaryPauseStart().isEmpty());
  }

  /**
   * One pass's reading of Valkey: the live agents, and what they tell about the Rollout's key
   * spaces.
   *
   * @throws RedisException from any method, if Valkey cannot be read in time
   */
  private static final class ValkeyReading {
    private final ValkeyCommands valkey;
    private final ControlKeys keys;
    private final NamespaceStats stats;
    private final List<Agent> agents;
    private final RolloutView view;
    private final GateInputs.Warmup warmup;
    private final Duration l2Ttl;
    private final Instant now;

    ValkeyReading(ValkeyCommands valkey, ControlKeys keys, List<Agent> agents, RolloutView view,
        GateInputs.Warmup warmup, Duration l2Ttl, Instant now) {
      this.valkey = valkey;
      this.keys = keys;
      this.stats = new NamespaceStats(valkey, keys, READ_TIMEOUT);
      this.agents = agents;
      this.view = view;
      this.warmup = warmup;
      this.l2Ttl = l2Ttl;
      this.now = now;
    }

    /** Every live key space, by schema hash. */
    List<GateObservation.KeySpace> keySpaces() {
      Duration window = warmup.hitRatioWindow() != null ? warmup.hitRatioWindow()
          : DEFAULT_RATIO_WINDOW;
      Map<String, List<Agent>> bySchema = agents.stream()
          .collect(Collectors.groupingBy(Agent::schemaHash, TreeMap::new, Collectors.toList()));
      List<GateObservation.KeySpace> result = new ArrayList<>();
      bySchema.forEach((schema, members) -> result.add(new GateObservation.KeySpace(schema,
          members, stats.keyCount(schema), stats.hitRatio(schema, window, now))));
      return result;
    }

    /**
     * What Valkey says about the canary's and the stable pods' namespaces.
     *
     * @param held whether the canary is held now, so its coverage and hit ratio are measured
     * @param upkeep whether to keep the canary's warm job (see {@link #currentJob})
     */
    GateInputs.Observed observed(boolean held, boolean upkeep) {
      Set<String> canary = schemasOf(view.canaryInProgress() ? view.currentPodHash() : null);
      Set<String> stable = schemasOf(view.stableRs());
      Coverage coverage = null;
      Double hitRatio = null;
      WarmJob job = null;
      HotSetForecast.Cut hotSet = null;
      if (held && canary.size() == 1) {
        String schema = canary.iterator().next();
        job = currentJob(schema, upkeep);
        // With a warm job, the target is the hot set it snapshotted; without one, the live hot
        // set: the hottest ids expected to be read before a value written now expires.
        if (job != null) {
          coverage = stats.jobCoverage(schema);
        } else {
          hotSet = stats.hotSet(warmup.hotSetSize(), l2Ttl, now);
          coverage = stats.coverage(schema, hotSet.ids());
        }
        if (warmup.minHitRatio() != null) {
          hitRatio = stats.hitRatio(schema, warmup.hitRatioWindow(), now);
        }
      }
      OriginForecast.Forecast forecast = null;
      if (view.canaryInProgress() && !view.abort() && canary.size() == 1
          && !canary.equals(stable)) {
        String schema = canary.iterator().next();
        HotSetForecast.Cut cut = hotSet != null ? hotSet
            : stats.hotSet(warmup.hotSetSize(), l2Ttl, now);
        boolean preloading = job != null
            || !held && WarmJobs.read(valkey.sync(), keys, schema) != null;
        forecast = forecast(schema, preloading, cut);
        if (held && upkeep && job != null) {
          WarmJobs.ceiling(valkey.sync(), keys, schema, warmup.preloadCeiling(forecast));
        }
      }
      return new GateInputs.Observed(true, null, canary, stable, coverage, hitRatio, job, hotSet,
          forecast);
    }

    /**
     * The warm job of the held canary's namespace {@code schema}, or null. A job of another
     * canary revision with the same schema (a newer revision pushed, or an older job left over)
     * is discarded: its values may have expired, and this canary gets a fresh one. A job of this
     * canary is kept warm: while held, the agents keep its ids warm, so coverage does not decay.
     * Without {@code upkeep}, nothing is written: a job of another revision reads as none.
     */
    private WarmJob currentJob(String schema, boolean upkeep) {
      WarmJob job = WarmJobs.read(valkey.sync(), keys, schema);
      if (job != null && !Objects.equals(job.revision(), view.currentPodHash())) {
        if (upkeep) {
          WarmJobs.discard(valkey.sync(), keys, schema);
        }
        return null;
      }
      if (job != null && upkeep) {
        WarmJobs.keepWarm(valkey.sync(), keys, schema, now);
      }
      return job;
    }

    /**
     * The origin load releasing canary namespace {@code schema} now would add
     * ({@link OriginForecast}), from the hot set {@code cut}, the canary's key space and every
     * live key space's traffic over the last minute. The steady origin rate is that of the other
     * key spaces, plus the canary's own when it has no warm job ({@code preloading}): a
     * preload's reads are counted in its key space and are not part of what stays after the
     * release.
     */
    private OriginForecast.Forecast forecast(String schema, boolean preloading,
        HotSetForecast.Cut cut) {
      if (cut.rates().isEmpty() && cut.size() > 0) {
        return OriginForecast.Forecast.unknown("the hot set has no request rates ("
            + cut.noForecast() + ")");
      }
      NamespaceStats.Traffic all = NamespaceStats.Traffic.NONE;
      NamespaceStats.Traffic stableTraffic = NamespaceStats.Traffic.NONE;
      NamespaceStats.Traffic canaryTraffic = NamespaceStats.Traffic.NONE;
      double steady = 0;
      for (String ns : agents.stream().map(Agent::schemaHash).collect(Collectors.toSet())) {
        NamespaceStats.Traffic t = stats.traffic(ns, now);
        all = all.plus(t);
        if (ns.equals(schema)) {
          canaryTraffic = t;
          steady += preloading ? 0 : t.originLoads();
        } else {
          steady += t.originLoads();
          boolean stableRole = agents.stream().anyMatch(a -> a.schemaHash().equals(ns)
              && a.podTemplateHash().equals(view.stableRs()));
          if (stableRole) {
            stableTraffic = stableTraffic.plus(t);
          }
        }
      }
      double share;
      if (stableTraffic.requests() + canaryTraffic.requests() > 0) {
        share = stableTraffic.requests() / (stableTraffic.requests() + canaryTraffic.requests());
      } else {
        long stablePods = agents.stream()
            .filter(a -> a.podTemplateHash().equals(view.stableRs())).count();
        long canaryPods = agents.stream()
            .filter(a -> a.podTemplateHash().equals(view.currentPodHash())).count();
        share = stablePods + canaryPods == 0 ? 1
            : (double) stablePods / (stablePods + canaryPods);
      }
      Double canaryHitRatio = canaryTraffic.requests() > 0
          ? canaryTraffic.hits() / canaryTraffic.requests() : null;
      List<OriginForecast.Probe> probes = stats.probes(schema, cut.ids(), cut.rates());
      // The stable key space is read for the stable pods only: its reads end with the release.
      double leaving = Math.min(steady, stableTraffic.originLoads());
      return OriginForecast.of(new OriginForecast.Inputs(probes, all.requests(),
          TailShape.of(cut.rates()), canaryHitRatio, steady, leaving, share, l2Ttl));
    }

    private Set<String> schemasOf(String podHash) {
      return podHash == null ? Set.of() : agents.stream()
          .filter(a -> a.podTemplateHash().equals(podHash)).map(Agent::schemaHash)
          .collect(Collectors.toSet());
    }
  }
}
