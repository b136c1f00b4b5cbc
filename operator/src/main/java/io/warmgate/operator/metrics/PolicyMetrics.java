package io.warmgate.operator.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Gauges of every CachePolicy's status, read from the operator's cached copies each time
 * {@link #refresh()} runs (right before {@code /metrics} is rendered), so they never lag the status
 * by more than a scrape. Every series is labelled {@code namespace} and {@code policy}; the other
 * labels take values from closed sets (phases, condition types, statuses and reasons, roles), so a
 * policy contributes a bounded number of series, none per id, pod or schema hash:
 *
 * <ul>
 *   <li>{@code warmgate_gate_phase{phase}}: 1 for the gate's current phase, 0 for the other six
 *       (policies whose gate has run: Rollout targets);
 *   <li>{@code warmgate_gate_held_seconds}: how long the gate has held the current canary, 0 while
 *       it holds nothing;
 *   <li>{@code warmgate_gate_coverage_ratio} and {@code warmgate_gate_coverage_target_ratio}: the
 *       canary's coverage of its hot set and the coverage it needs (0–1), while known;
 *   <li>{@code warmgate_gate_forecast_peak_reads_per_second} and
 *       {@code warmgate_gate_forecast_origin_reads_per_second}: the origin reads per second a
 *       release now would add at its peak, and the steady origin rate it comes on top of
 *       ({@code status.gate.forecast}), while forecast;
 *   <li>{@code warmgate_gate_origin_budget_reads_per_second}: {@code warmup.originBudget}, while
 *       forecast with a budget set;
 *   <li>{@code warmgate_gate_preload_rate_ids_per_second}: the rate the preloading agent loads at
 *       now, while it reports one;
 *   <li>{@code warmgate_policy_condition{condition,status,reason}}: 1 per condition of the status;
 *   <li>{@code warmgate_policy_agents{role}}: agents registered in Valkey for the Stable and Canary
 *       schema hashes ({@code role="None"} for hashes of neither), as the status last recorded;
 *   <li>{@code warmgate_policy_target_ready_replicas}: ready replicas of the target workload.
 * </ul>
 *
 * <p>Thread-safe; {@link #refresh()} is cheap (no API or Valkey call).
 */
public final class PolicyMetrics {

  /** Ready replicas of a policy's target, from the operator's informers. */
  @FunctionalInterface
  public interface Targets {

    /** Ready replicas of {@code ref} in {@code namespace}; empty when the target is not known. */
    OptionalInt readyReplicas(String namespace, TargetRef ref);
  }

  private final Supplier<Stream<CachePolicy>> policies;
  private final Targets targets;
  private final Clock clock;
  private final MultiGauge phase;
  private final MultiGauge held;
  private final MultiGauge coverage;
  private final MultiGauge coverageTarget;
  private final MultiGauge forecastPeak;
  private final MultiGauge forecastOrigin;
  private final MultiGauge budget;
  private final MultiGauge preloadRate;
  private final MultiGauge condition;
  private final MultiGauge agents;
  private final MultiGauge ready;

  /**
   * @param policies the policies the operator sees now (its informer's cache)
   * @param targets ready replicas of a target
   */
  public PolicyMetrics(MeterRegistry registry, Supplier<Stream<CachePolicy>> policies,
      Targets targets, Clock clock) {
    this.policies = Objects.requireNonNull(policies, "policies");
    this.targets = Objects.requireNonNull(targets, "targets");
    this.clock = Objects.requireNonNull(clock, "clock");
    phase = MultiGauge.builder("warmgate.gate.phase")
        .description("1 for the rollout gate's current phase, 0 for the others")
        .register(registry);
    held = MultiGauge.builder("warmgate.gate.held").baseUnit("seconds")
        .description("How long the gate has held the current canary; 0 while it holds nothing")
        .register(registry);
    coverage = MultiGauge.builder("warmgate.gate.coverage").baseUnit("ratio")
        .description("Share (0-1) of the hot set present in the canary's namespace")
        .register(registry);
    coverageTarget = MultiGauge.builder("warmgate.gate.coverage.target").baseUnit("ratio")
        .description("Share (0-1) of the hot set the canary needs (warmup.minCoverage)")
        .register(registry);
    forecastPeak = MultiGauge.builder("warmgate.gate.forecast.peak")
        .baseUnit("reads.per.second")
        .description("Origin reads per second a release of the canary now would add at its "
            + "peak (forecast)")
        .register(registry);
    forecastOrigin = MultiGauge.builder("warmgate.gate.forecast.origin")
        .baseUnit("reads.per.second")
        .description("Steady origin reads per second the forecast peak comes on top of")
        .register(registry);
    budget = MultiGauge.builder("warmgate.gate.origin.budget").baseUnit("reads.per.second")
        .description("warmup.originBudget: origin reads per second the gate releases under")
        .register(registry);
    preloadRate = MultiGauge.builder("warmgate.gate.preload.rate").baseUnit("ids.per.second")
        .description("Ids per second the preloading agent loads at now")
        .register(registry);
    condition = MultiGauge.builder("warmgate.policy.condition")
        .description("1 for each status condition of a CachePolicy, labelled with its status "
            + "and reason")
        .register(registry);
    agents = MultiGauge.builder("warmgate.policy.agents")
        .description("Agents registered in Valkey for the policy's Stable and Canary schema "
            + "hashes, as its status last recorded")
        .register(registry);
    ready = MultiGauge.builder("warmgate.policy.target.ready.replicas")
        .description("Ready replicas of the policy's target workload")
        .register(registry);
  }

  /** Sets every gauge from the policies' current status; series of deleted policies go away. */
  public synchronized void refresh() {
    Instant now = clock.instant();
    List<MultiGauge.Row<?>> phases = new ArrayList<>();
    List<MultiGauge.Row<?>> helds = new ArrayList<>();
    List<MultiGauge.Row<?>> coverages = new ArrayList<>();
    List<MultiGauge.Row<?>> coverageTargets = new ArrayList<>();
    List<MultiGauge.Row<?>> conditions = new ArrayList<>();
    List<MultiGauge.Row<?>> peaks = new ArrayList<>();
    List<MultiGauge.Row<?>> origins = new ArrayList<>();
    List<MultiGauge.Row<?>> budgets = new ArrayList<>();
    List<MultiGauge.Row<?>> preloadRates = new ArrayList<>();
    List<MultiGauge.Row<?>> agentRows = new ArrayList<>();
    List<MultiGauge.Row<?>> readyRows = new ArrayList<>();
    policies.get().forEach(policy -> {
      String namespace = policy.getMetadata().getNamespace();
      Tags tags = Tags.of("namespace", namespace, "policy", policy.getMetadata().getName());
      CachePolicyStatus status = policy.getStatus();
      if (policy.getSpec() != null && policy.getSpec().getTargetRef() != null) {
        targets.readyReplicas(namespace, policy.getSpec().getTargetRef()).ifPresent(n ->
            readyRows.add(MultiGauge.Row.of(tags, n)));
      }
      if (status == null) {
        return;
      }
      for (Condition c : status.getConditions()) {
        if (c.getType() != null) {
          conditions.add(MultiGauge.Row.of(tags.and("condition", c.getType(),
              "status", Objects.requireNonNullElse(c.getStatus(), Condition.UNKNOWN),
              "reason", Objects.requireNonNullElse(c.getReason(), "")), 1));
        }
      }
      GateStatus gate = status.getGate();
      if (gate == null || !isRollout(policy)) {
        return;
      }
      for (GatePhase p : GatePhase.values()) {
        phases.add(MultiGauge.Row.of(tags.and("phase", p.name()), p == gate.getPhase() ? 1 : 0));
      }
      helds.add(MultiGauge.Row.of(tags, heldSeconds(status, gate, now)));
      if (gate.getCoverage() != null) {
        coverages.add(MultiGauge.Row.of(tags, gate.getCoverage() / 100.0));
      }
      if (gate.getTarget() != null) {
        coverageTargets.add(MultiGauge.Row.of(tags, gate.getTarget() / 100.0));
      }
      ForecastStatus forecast = gate.getForecast();
      if (forecast != null) {
        if (forecast.getPeak() != null) {
          peaks.add(MultiGauge.Row.of(tags, forecast.getPeak()));
        }
        if (forecast.getOriginRate() != null) {
          origins.add(MultiGauge.Row.of(tags, forecast.getOriginRate()));
        }
        if (forecast.getBudget() != null) {
          budgets.add(MultiGauge.Row.of(tags, forecast.getBudget()));
        }
        if (forecast.getPreloadRate() != null) {
          preloadRates.add(MultiGauge.Row.of(tags, forecast.getPreloadRate()));
        }
      }
      int stable = 0;
      int canary = 0;
      int none = 0;
      for (KeySpaceStatus ns : status.getKeySpaces()) {
        int n = ns.getAgents() == null ? 0 : ns.getAgents();
        if (ns.getRole() == null) {
          none += n;
        } else {
          switch (ns.getRole()) {
            case Stable -> stable += n;
            case Canary -> canary += n;
          }
        }
      }
      agentRows.add(MultiGauge.Row.of(tags.and("role", "Stable"), stable));
      agentRows.add(MultiGauge.Row.of(tags.and("role", "Canary"), canary));
      agentRows.add(MultiGauge.Row.of(tags.and("role", "None"), none));
    });
    phase.register(phases, true);
    held.register(helds, true);
    coverage.register(coverages, true);
    coverageTarget.register(coverageTargets, true);
    forecastPeak.register(peaks, true);
    forecastOrigin.register(origins, true);
    budget.register(budgets, true);
    preloadRate.register(preloadRates, true);
    condition.register(conditions, true);
    agents.register(agentRows, true);
    ready.register(readyRows, true);
  }

  private static boolean isRollout(CachePolicy policy) {
    return policy.getSpec() != null && policy.getSpec().getTargetRef() != null
        && policy.getSpec().getTargetRef().getKind() == TargetKind.Rollout;
  }

  /**
   * Seconds since the gate started holding the canary ({@code status.gate.startedAt}, else when
   * {@code RolloutHeld} became True) while {@code RolloutHeld} is True; 0 otherwise.
   */
  static double heldSeconds(CachePolicyStatus status, GateStatus gate, Instant now) {
    Optional<Condition> rolloutHeld = status.getConditions().stream()
        .filter(c -> "RolloutHeld".equals(c.getType())).findFirst();
    if (rolloutHeld.isEmpty() || !Condition.TRUE.equals(rolloutHeld.get().getStatus())) {
      return 0;
    }
    Instant since = parse(gate.getStartedAt())
        .or(() -> parse(rolloutHeld.get().getLastTransitionTime())).orElse(now);
    return Math.max(0, Duration.between(since, now).toMillis() / 1000.0);
  }

  private static Optional<Instant> parse(String time) {
    try {
      return time == null ? Optional.empty() : Optional.of(Instant.parse(time));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
