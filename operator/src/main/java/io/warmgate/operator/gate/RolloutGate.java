package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisException;
import io.warmgate.contract.Durations;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.HotIdStatus;
import io.warmgate.operator.model.KeySpaceRole;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.status.Conditions;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rollout gate for one CachePolicy and its Rollout: reads the Rollout and Valkey, decides with
 * {@link GateDecision}, acts (release, abort, open a warm job), and says what the policy's status
 * should show and which Events to record.
 *
 * <p>Stateless between calls: every input comes from the Rollout, Valkey and the policy's status,
 * so a restarted or newly elected operator continues where the last one stopped. Thread-safe.
 */
public final class RolloutGate {

  /** How long a held canary may have no registered agent before {@code AgentNotInjected}. */
  public static final Duration DEFAULT_AGENT_GRACE = Duration.ofSeconds(30);
  /** Window of the namespaces' hit ratio when the policy sets no {@code hitRatioWindow}. */
  static final Duration DEFAULT_RATIO_WINDOW = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(RolloutGate.class);
  /** Phases in which the gate is done with a canary; an EnumSet, so contains(null) is false. */
  private static final Set<GatePhase> FINISHED =
      EnumSet.of(GatePhase.Promoted, GatePhase.Skipped, GatePhase.TimedOut);

  /**
   * Upper bound for one pipelined batch of Valkey replies; each command is also bounded by the
   * client's own command timeout ({@code WARMGATE_VALKEY_TIMEOUT}).
   */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  private final Clock clock;
  private final Duration agentGrace;
  private final BooleanSupplier leading;

  /**
   * @param clock the clock for maxWait, the grace period and timestamps
   * @param agentGrace see {@link #DEFAULT_AGENT_GRACE}
   * @param leading whether this replica still holds the leader Lease, asked right before the
   *     Rollout is patched
   */
  public RolloutGate(Clock clock, Duration agentGrace, BooleanSupplier leading) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.agentGrace = Objects.requireNonNull(agentGrace, "agentGrace");
    this.leading = Objects.requireNonNull(leading, "leading");
  }

  /**
   * What one pass of the gate produced.
   *
   * @param gate the new {@code status.gate}
   * @param keySpaces the new {@code status.keySpaces}
   * @param decision what was decided (after any warm job was opened)
   * @param warmed the new {@code Warmed} condition, or null to leave it as it is
   * @param held the new {@code RolloutHeld} condition, or null to leave it as it is
   * @param active whether a canary is in progress, so the gate should look again soon
   */
  public record Outcome(GateStatus gate, List<KeySpaceStatus> keySpaces,
      Decision decision, ConditionValue warmed, ConditionValue held, boolean active) {}

  /** A condition's status, reason and message. */
  public record ConditionValue(String status, String reason, String message) {}

  /**
   * Runs the gate for {@code policy} and its target {@code rollout}.
   *
   * @param valkey the policy's Valkey connection, or null when Valkey is not usable
   * @param valkeyProblem why Valkey is not usable (when {@code valkey} is null)
   */
  public Outcome run(KubernetesClient client, CachePolicy policy,
      GenericKubernetesResource rollout, ValkeyCommands valkey,
      String valkeyProblem) {
    Instant now = clock.instant();
    WarmupSpec spec = policy.getSpec().getWarmup();
    GateInputs.Warmup warmup = GateInputs.Warmup.of(spec);
    Duration l2Ttl = l2Ttl(policy);
    RolloutView view = RolloutView.of(rollout);
    GateStep step = GateStep.resolve(view.steps(), spec == null ? null : spec.getGateStep());
    CachePolicyStatus status = policy.getStatus() == null ? new CachePolicyStatus()
        : policy.getStatus();
    if (maybeActedOn(view, step) && !doneWith(status, view)) {
      // Possibly released or aborted by this operator an instant ago: the informer's copy of the
      // policy may not show that yet, so read the recorded outcome from the API server.
      CachePolicy fresh = client.resources(CachePolicy.class)
          .inNamespace(policy.getMetadata().getNamespace())
          .withName(policy.getMetadata().getName()).get();
      if (fresh != null && fresh.getStatus() != null) {
        status = fresh.getStatus();
      }
    }
    GateStatus before = status.getGate();
    GatePhase previous = previousPhase(status, view);
    boolean sameCanary = previous != null;
    boolean holding = holding(status, view);
    ControlKeys keys = new ControlKeys(policy.getSpec().getCacheName());

    List<KeySpaceStatus> keySpaces = status.getKeySpaces();
    GateInputs.Observed observed;
    if (valkey == null) {
      observed = GateInputs.Observed.unreachable(valkeyProblem);
    } else {
      try {
        List<Agent> agents = AgentRegistry.live(valkey.sync(), keys,
            policy.getMetadata().getNamespace(), now);
        keySpaces = keySpaces(valkey, keys, agents, view, warmup, now);
        observed = observe(valkey, keys, agents, view, step, warmup, l2Ttl, now);
      } catch (RedisException e) {
        log.debug("Reading Valkey for CachePolicy {}/{} failed",
            policy.getMetadata().getNamespace(), policy.getMetadata().getName(), e);
        observed = GateInputs.Observed.unreachable(String.valueOf(e.getMessage()));
      }
    }

    // No agent of the canary: its pods tell why (not injected, starting, or failing).
    CanaryPods pods = observed.reachable() && observed.canarySchemas().isEmpty()
        && view.canaryInProgress() && view.canaryPauseStart().isPresent()
        ? CanaryPods.read(client, view.namespace(), view.currentPodHash()) : null;
    GateInputs inputs =
        new GateInputs(view, step, warmup, previous, holding, observed, now, agentGrace, pods);
    Decision decision = GateDecision.decide(inputs);
    if (decision instanceof Decision.OpenWarmJob open) {
      try {
        String hotSet = observed.hotSet() == null ? null : observed.hotSet().describe();
        if (WarmJobs.open(valkey.sync(), keys, open.schemaHash(), open.target(), open.rate(),
            hotSet, view.currentPodHash(), now, ceiling(warmup, observed.forecast()))) {
          log.info("Opened the warm job of schema hash {} for Rollout {} ({} ids at {}/s; {})",
              open.schemaHash(), view.id(), open.target(), open.rate(), hotSet);
        }
        observed = withJob(observed, WarmJobs.read(valkey.sync(), keys, open.schemaHash()));
      } catch (RedisException e) {
        observed = GateInputs.Observed.unreachable(String.valueOf(e.getMessage()));
      }
      inputs = new GateInputs(view, step, warmup, previous, holding, observed, now, agentGrace,
          pods);
      decision = GateDecision.decide(inputs);
      if (decision instanceof Decision.OpenWarmJob) {
        // The job vanished right after opening (expired or deleted): hold and look again.
        decision = new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
            "held: the warm job of schema hash " + open.schemaHash() + " could not be read back");
      }
    }

    boolean repeat = sameCanary && before.getReleasedAt() != null
        && decision.phase() == previous
        && view.canaryPauseStart().map(start -> !Instant.parse(before.getReleasedAt())
            .isBefore(start.truncatedTo(ChronoUnit.SECONDS))).orElse(false);
    GateEvents events = new GateEvents(client, clock);
    RolloutPatcher patcher = new RolloutPatcher(client);
    if (decision instanceof Decision.Release || decision instanceof Decision.Abort) {
      boolean applied = leading.getAsBoolean() && (decision instanceof Decision.Release
          ? patcher.release(view, step.index())
          : patcher.abort(view, step.index()));
      if (!applied) {
        // The Rollout changed meanwhile, or the Lease was lost: record nothing new and decide
        // again shortly (the new leader does).
        return new Outcome(before, status.getKeySpaces(), decision,
            current(status, Conditions.WARMED), current(status, Conditions.ROLLOUT_HELD), true);
      }
      log.info("Rollout {}: {}", view.id(), decision.message());
      if (decision instanceof Decision.Release && observed.warmJob() != null
          && observed.canarySchemas().size() == 1) {
        endKeepWarm(valkey, keys, observed.canarySchemas().iterator().next(), now);
      }
      if (!repeat) {
        events.record(policy, view, new GateEvents.GateEvent(
            decision.phase() == GatePhase.TimedOut, decision.reason(), decision.message()));
      }
    } else if (decision instanceof Decision.Hold hold) {
      Optional<Condition> held = Conditions.find(status, Conditions.ROLLOUT_HELD);
      boolean changed = held.map(c -> !Condition.TRUE.equals(c.getStatus())
          || !hold.reason().equals(c.getReason())).orElse(true);
      if (changed) {
        log.info("Rollout {}: {}", view.id(), decision.message());
        events.record(policy, view, new GateEvents.GateEvent(warning(decision.reason()),
            decision.reason(), decision.message()));
      }
    }

    // Only a canary the gate was already done with keeps what its status recorded; one a person
    // promoted or aborted while the gate held it is reported anew.
    boolean done = inputs.finished();
    GateStatus gate = gateStatus(decision, view, observed, warmup, sameCanary ? before : null,
        repeat, done, now);
    gate.setRolloutGeneration(rollout.getMetadata().getGeneration());
    boolean active = view.canaryInProgress() && !view.abort()
        && !(decision instanceof Decision.Pass && FINISHED.contains(decision.phase()));
    boolean kept = decision instanceof Decision.Pass && done;
    ConditionValue held = kept && current(status, Conditions.ROLLOUT_HELD) != null
        ? current(status, Conditions.ROLLOUT_HELD)
        : new ConditionValue(decision instanceof Decision.Hold ? Condition.TRUE : Condition.FALSE,
            decision.reason(), decision.message());
    return new Outcome(gate, keySpaces, decision,
        warmed(decision, status, view, before, pendingRevision(rollout)), held, active);
  }

  /**
   * Whether {@code status} records the gate as holding the Rollout's current canary
   * ({@code RolloutHeld=True} with a gate phase for it).
   */
  private static boolean holding(CachePolicyStatus status, RolloutView view) {
    return previousPhase(status, view) != null
        && Conditions.isTrue(status, Conditions.ROLLOUT_HELD);
  }

  /**
   * Whether {@code status} records the gate as done with the Rollout's current canary: a finished
   * phase and no hold (a {@code TimedOut} canary held by {@code onTimeout: Hold} is not done).
   */
  private static boolean doneWith(CachePolicyStatus status, RolloutView view) {
    return FINISHED.contains(previousPhase(status, view)) && !holding(status, view);
  }

  /** The phase {@code status} records for the Rollout's current canary, or null. */
  private static GatePhase previousPhase(CachePolicyStatus status, RolloutView view) {
    GateStatus gate = status.getGate();
    return gate != null && view.currentPodHash() != null
        && view.currentPodHash().equals(gate.getCanaryPodHash()) ? gate.getPhase() : null;
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

  /** The policy's {@code l2Ttl}: how long a preloaded value lives, the hot set's forecast window. */
  static Duration l2Ttl(CachePolicy policy) {
    String l2Ttl = policy.getSpec().getL2Ttl();
    return Durations.parse(l2Ttl != null ? l2Ttl : new CachePolicySpec().getL2Ttl());
  }

  /** Best effort: keep-warm ends by itself {@link WarmJobs#KEEP_WARM} after the last renewal. */
  private static void endKeepWarm(ValkeyCommands valkey, ControlKeys keys, String schema,
      Instant now) {
    try {
      WarmJobs.endKeepWarm(valkey.sync(), keys, schema, now);
    } catch (RedisException e) {
      log.debug("Ending keep-warm of schema hash {} failed; it lapses by itself", schema, e);
    }
  }

  private GateInputs.Observed observe(ValkeyCommands valkey,
      ControlKeys keys, List<Agent> agents, RolloutView view, GateStep step,
      GateInputs.Warmup warmup, Duration l2Ttl, Instant now) {
    Set<String> canary = schemasOf(agents, view.canaryInProgress() ? view.currentPodHash() : null);
    Set<String> stable = schemasOf(agents, view.stableRs());
    Coverage coverage = null;
    Double hitRatio = null;
    WarmJob job = null;
    HotSetForecast.Cut hotSet = null;
    boolean held = view.canaryInProgress() && !view.abort() && step.found()
        && Objects.equals(view.currentStepIndex(), step.index())
        && view.canaryPauseStart().isPresent();
    if (held && canary.size() == 1) {
      String schema = canary.iterator().next();
      NamespaceStats stats = new NamespaceStats(valkey, keys, READ_TIMEOUT);
      job = WarmJobs.read(valkey.sync(), keys, schema);
      if (job != null && !Objects.equals(job.revision(), view.currentPodHash())) {
        // A job of another canary revision with the same schema (a newer revision pushed, or
        // an older job left over): its values may have expired; this canary gets a fresh one.
        WarmJobs.discard(valkey.sync(), keys, schema);
        job = null;
      }
      if (job != null) {
        // While held, the agents keep the job's ids warm, so coverage does not decay.
        WarmJobs.keepWarm(valkey.sync(), keys, schema, now);
      }
      // With a warm job, the target is the hot set it snapshotted; without one, the live hot set:
      // the hottest ids expected to be read before a value written now expires.
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
      NamespaceStats stats = new NamespaceStats(valkey, keys, READ_TIMEOUT);
      HotSetForecast.Cut cut = hotSet != null ? hotSet
          : stats.hotSet(warmup.hotSetSize(), l2Ttl, now);
      boolean preloading = job != null
          || !held && WarmJobs.read(valkey.sync(), keys, schema) != null;
      forecast = forecast(stats, agents, view, schema, preloading, cut, l2Ttl, now);
      if (held && job != null) {
        WarmJobs.ceiling(valkey.sync(), keys, schema, ceiling(warmup, forecast));
      }
    }
    return new GateInputs.Observed(true, null, canary, stable, coverage, hitRatio, job, hotSet,
        forecast);
  }

  /**
   * Ids per second {@code warmup.originBudget} leaves for a preload: budget minus the forecast's
   * steady origin rate, at most {@code preloadRate}, 0 while the forecast is unknown (the preload
   * waits rather than guess); null without a budget.
   */
  static Double ceiling(GateInputs.Warmup warmup, OriginForecast.Forecast forecast) {
    if (warmup.originBudget() == null) {
      return null;
    }
    if (forecast == null || !forecast.known()) {
      return 0.0;
    }
    return Math.max(0, Math.min(warmup.preloadRate(),
        warmup.originBudget() - forecast.steady()));
  }

  /**
   * The origin load releasing canary namespace {@code schema} now would add
   * ({@link OriginForecast}), from the hot set {@code cut}, the canary's key space and every
   * live key space's traffic over the last minute. The steady origin rate is that of the other
   * key spaces, plus the canary's own when it has no warm job ({@code preloading}): a preload's
   * reads are counted in its key space and are not part of what stays after the release.
   *
   * @throws io.lettuce.core.RedisException if Valkey cannot be read in time
   */
  static OriginForecast.Forecast forecast(NamespaceStats stats, List<Agent> agents,
      RolloutView view, String schema, boolean preloading, HotSetForecast.Cut cut,
      Duration l2Ttl, Instant now) {
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
      share = stablePods + canaryPods == 0 ? 1 : (double) stablePods / (stablePods + canaryPods);
    }
    Double canaryHitRatio = canaryTraffic.requests() > 0
        ? canaryTraffic.hits() / canaryTraffic.requests() : null;
    List<OriginForecast.Probe> probes = stats.probes(schema, cut.ids(), cut.rates());
    // The stable key space is read for the stable pods only: its reads end with the release.
    double leaving = Math.min(steady, stableTraffic.originLoads());
    return OriginForecast.of(new OriginForecast.Inputs(probes, all.requests(),
        TailShape.of(cut.rates()), canaryHitRatio, steady, leaving, share, l2Ttl));
  }

  private List<KeySpaceStatus> keySpaces(ValkeyCommands valkey,
      ControlKeys keys, List<Agent> agents, RolloutView view, GateInputs.Warmup warmup,
      Instant now) {
    NamespaceStats stats = new NamespaceStats(valkey, keys, READ_TIMEOUT);
    Duration window = warmup.hitRatioWindow() != null ? warmup.hitRatioWindow()
        : DEFAULT_RATIO_WINDOW;
    Map<String, List<Agent>> bySchema = agents.stream()
        .collect(Collectors.groupingBy(Agent::schemaHash, TreeMap::new, Collectors.toList()));
    List<KeySpaceStatus> result = new ArrayList<>();
    bySchema.forEach((schema, members) -> {
      KeySpaceStatus ns = new KeySpaceStatus();
      ns.setSchemaHash(schema);
      if (members.stream().anyMatch(a -> a.podTemplateHash().equals(view.stableRs()))) {
        ns.setRole(KeySpaceRole.Stable);
      } else if (view.canaryInProgress()
          && members.stream().anyMatch(a -> a.podTemplateHash().equals(view.currentPodHash()))) {
        ns.setRole(KeySpaceRole.Canary);
      }
      ns.setAgents(members.size());
      ns.setKeys(stats.keyCount(schema));
      Double ratio = stats.hitRatio(schema, window, now);
      ns.setHitRatio(ratio == null ? null : Math.round(ratio * 1000) / 10.0);
      result.add(ns);
    });
    result.sort(Comparator.comparing((KeySpaceStatus n) -> n.getRole() == null ? 2
        : n.getRole().ordinal()).thenComparing(KeySpaceStatus::getSchemaHash));
    return result;
  }

  /**
   * @param same the recorded gate status when it is about the same canary, else null
   * @param done whether the gate was already done with this canary ({@link GateInputs#finished})
   */
  private GateStatus gateStatus(Decision decision, RolloutView view,
      GateInputs.Observed observed, GateInputs.Warmup warmup, GateStatus same, boolean repeat,
      boolean done, Instant now) {
    GateStatus gate = new GateStatus();
    gate.setPhase(decision.phase());
    gate.setMessage(decision.message());
    if (!view.canaryInProgress()) {
      if (same != null && FINISHED.contains(decision.phase())) {
        copy(same, gate);
        gate.setPhase(decision.phase());
        gate.setMessage(same.getMessage());
      } else {
        gate.setStableSchemaHash(observed.stableSchema());
      }
      return gate;
    }
    if (same != null) {
      copy(same, gate);
      gate.setPhase(decision.phase());
      gate.setMessage(decision.message());
    }
    gate.setCanaryPodHash(view.currentPodHash());
    gate.setTarget(warmup.minCoverage());
    if (observed.stableSchema() != null) {
      gate.setStableSchemaHash(observed.stableSchema());
    }
    if (observed.canarySchema() != null) {
      gate.setCanarySchemaHash(observed.canarySchema());
    }
    if (observed.coverage() != null) {
      gate.setCoverage(observed.coverage().percent());
    }
    gate.setForecast(forecastStatus(observed, warmup, now));
    view.canaryPauseStart().ifPresent(start -> gate.setStartedAt(timestamp(start)));
    if ((decision instanceof Decision.Release || decision instanceof Decision.Abort) && !repeat) {
      gate.setReleasedAt(timestamp(now));
      gate.setReleasedCoverage(
          observed.coverage() == null ? null : observed.coverage().percent());
    }
    if (decision instanceof Decision.Pass && done && same != null) {
      gate.setMessage(same.getMessage());
    }
    return gate;
  }

  /**
   * {@code status.gate.forecast} from what was observed; null when nothing was forecast (no canary
   * with a schema hash of its own, Valkey unreadable).
   */
  static ForecastStatus forecastStatus(GateInputs.Observed observed, GateInputs.Warmup warmup,
      Instant now) {
    OriginForecast.Forecast f = observed.forecast();
    if (f == null) {
      return null;
    }
    ForecastStatus status = new ForecastStatus();
    status.setBudget(warmup.originBudget());
    status.setMeasuredAt(timestamp(now));
    status.setMessage(f.describe());
    if (observed.warmJob() != null && observed.warmJob().rate() != null) {
      status.setPreloadRate(round(observed.warmJob().rate()));
    }
    if (!f.known()) {
      return status;
    }
    status.setOriginRate(round(f.steady()));
    status.setLeavingRate(round(f.leaving()));
    status.setPeak(round(f.peak()));
    status.setFirstSeconds(round(f.firstSeconds()));
    status.setTail(round(f.tail()));
    status.setWarmAfterSeconds(f.warmAfter().toSeconds());
    status.setExtraReads(Math.round(f.extraReads()));
    status.setReleasedShare(Math.round(f.releasedShare() * 1000) / 10.0);
    status.setDominantIds(f.dominant().stream()
        .map(h -> new HotIdStatus(h.id(), round(h.rate()))).collect(Collectors.toList()));
    return status;
  }

  /** To one decimal. */
  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  /**
   * {@code Warmed} as {@code decision} implies it, naming the canary pod hash it speaks about; the
   * recorded one when it is kept, which it is only while the Rollout still runs the pod hash the
   * recorded gate status names (the canary it was about, now stable), never for another revision.
   *
   * @param pending why the Rollout's canary may be about to change, or null
   */
  private static ConditionValue warmed(Decision decision, CachePolicyStatus status,
      RolloutView view, GateStatus before, String pending) {
    if (pending != null
        && !(decision instanceof Decision.Release || decision instanceof Decision.Abort)) {
      return new ConditionValue(Condition.UNKNOWN, GateReasons.REVISION_PENDING, pending);
    }
    String reason = decision.reason();
    String message = decision.message();
    String revision = view.currentPodHash() == null ? "" : "canary " + view.currentPodHash()
        + ": ";
    if (decision instanceof Decision.Release release
        && release.phase() != GatePhase.TimedOut) {
      return new ConditionValue(Condition.TRUE, reason, revision + message);
    }
    if (GateReasons.TIMED_OUT.equals(reason) || GateReasons.WARMING.equals(reason)
        || GateReasons.HOT_SET_EMPTY.equals(reason) || GateReasons.CANNOT_WARM.equals(reason)
        || GateReasons.FORECAST_UNKNOWN.equals(reason)) {
      return new ConditionValue(Condition.FALSE, reason, revision + message);
    }
    boolean kept = decision instanceof Decision.Pass
        && (FINISHED.contains(decision.phase()) || decision.phase() == GatePhase.Idle)
        && before != null && view.currentPodHash() != null
        && view.currentPodHash().equals(before.getCanaryPodHash());
    if (kept && current(status, Conditions.WARMED) != null) {
      return current(status, Conditions.WARMED);
    }
    return new ConditionValue(Condition.UNKNOWN, reason, message);
  }

  /**
   * Why the Rollout's canary may be about to change: its {@code metadata.generation} is newer than
   * the {@code status.observedGeneration} Argo Rollouts wrote (a number, as a string); null when
   * they agree or either is missing.
   */
  static String pendingRevision(GenericKubernetesResource rollout) {
    Long generation = rollout.getMetadata().getGeneration();
    Object status = rollout.getAdditionalProperties().get("status");
    Object observed = status instanceof Map<?, ?> map ? map.get("observedGeneration") : null;
    if (generation == null || observed == null) {
      return null;
    }
    long seen;
    try {
      seen = Long.parseLong(String.valueOf(observed));
    } catch (NumberFormatException e) {
      return null;
    }
    return seen >= generation ? null : "Rollout " + rollout.getMetadata().getNamespace() + "/"
        + rollout.getMetadata().getName() + " generation " + generation
        + " is not observed by Argo Rollouts yet (observed " + seen + "); Warmed will speak "
        + "about the canary it starts";
  }

  /** The recorded condition of {@code type}, or null. */
  private static ConditionValue current(CachePolicyStatus status, String type) {
    return Conditions.find(status, type)
        .map(c -> new ConditionValue(c.getStatus(), c.getReason(), c.getMessage()))
        .orElse(null);
  }

  private static boolean warning(String reason) {
    return !GateReasons.WARMING.equals(reason) && !GateReasons.WAITING_FOR_AGENTS.equals(reason);
  }

  private static Set<String> schemasOf(List<Agent> agents, String podHash) {
    return podHash == null ? Set.of() : agents.stream()
        .filter(a -> a.podTemplateHash().equals(podHash)).map(Agent::schemaHash)
        .collect(Collectors.toSet());
  }

  private static GateInputs.Observed withJob(GateInputs.Observed o, WarmJob job) {
    return new GateInputs.Observed(o.reachable(), o.problem(), o.canarySchemas(),
        o.stableSchemas(), o.coverage(), o.hitRatio(), job, o.hotSet(), o.forecast());
  }

  private static void copy(GateStatus from, GateStatus to) {
    to.setCanaryPodHash(from.getCanaryPodHash());
    to.setStableSchemaHash(from.getStableSchemaHash());
    to.setCanarySchemaHash(from.getCanarySchemaHash());
    to.setCoverage(from.getCoverage());
    to.setTarget(from.getTarget());
    to.setStartedAt(from.getStartedAt());
    to.setReleasedAt(from.getReleasedAt());
    to.setReleasedCoverage(from.getReleasedCoverage());
  }

  private static String timestamp(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
  }
}
