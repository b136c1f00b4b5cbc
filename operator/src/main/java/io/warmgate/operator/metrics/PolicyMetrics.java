package io.warmgate.operator.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.status.Conditions;
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
 * by more than a scrape. Every series is labelled {@code namespace} and {@code policy}. A policy
 * contributes at most 10 series (at 1,000 policies every series counts): a state is one series
 * whose labels name the state, as kube-state-metrics does, and what the spec or another scrape
 * target already says is not repeated here ({@code PolicySeriesTest} holds the bound):
 *
 * <ul>
 *   <li>{@code warmgate_gate_phase{phase}}: 1, labelled with the gate's current phase (policies
 *       whose gate has run: Rollout targets). The series changes its label when the phase changes,
 *       rather than one series per phase at 0 or 1 or a numeric phase code: {@code
 *       warmgate_gate_phase{phase="TimedOut"}} still selects a phase by name, a dashboard shows the
 *       name, and no code table has to follow the enum;
 *   <li>{@code warmgate_gate_held_seconds}: how long the gate has held the current canary, 0 while
 *       it holds nothing;
 *   <li>{@code warmgate_gate_coverage_ratio}: the canary's coverage of its hot set (0–1), while
 *       known; the coverage it needs is the spec's {@code warmup.minCoverage};
 *   <li>{@code warmgate_gate_forecast_peak_reads_per_second}: the origin reads per second a release
 *       now would add at its peak, while forecast. The steady rate it comes on top of (less the
 *       stable key space's part, {@code status.gate.forecast.leavingRate}) and the
 *       preload rate are the agents' own {@code warmgate_origin_keys_total} and
 *       {@code warmgate_preload_rate_ids_per_second}; the budget is {@code warmup.originBudget};
 *   <li>{@code warmgate_policy_agents}: agents registered in Valkey for any of the policy's schema
 *       hashes, as the status last recorded (Rollout targets); {@code status.keySpaces} splits
 *       them by role;
 *   <li>{@code warmgate_policy_target_ready_replicas}: ready replicas of the target workload;
 *   <li>{@code warmgate_policy_condition{condition,status,reason}}: 1 for each of the conditions
 *       the alerts read, {@code Ready} (its reason is the first failing check, ReconcileFailed
 *       included), {@code L2Reachable} and {@code RolloutHeld} (its reason says why the gate holds,
 *       or {@code GatedByAnotherPolicy} when {@code Conflict} is True), and of
 *       {@code ChangesFollowed}, which no other series reports. {@code Warmed} and
 *       {@code Conflict} are left out: the phase, coverage and {@code RolloutHeld} say the same.
 * </ul>
 *
 * <p>Thread-safe; {@link #refresh()} is cheap (no API or Valkey call).
 */
public final class PolicyMetrics {

  /** The condition types exported: those the alerts read, and ChangesFollowed. */
  static final List<String> CONDITIONS = List.of(Conditions.READY, Conditions.L2_REACHABLE,
      Conditions.ROLLOUT_HELD, Conditions.CHANGES_FOLLOWED);

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
  private final MultiGauge forecastPeak;
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
        .description("1, labelled with the rollout gate's current phase")
        .register(registry);
    held = MultiGauge.builder("warmgate.gate.held").baseUnit("seconds")
        .description("How long the gate has held the current canary; 0 while it holds nothing")
        .register(registry);
    coverage = MultiGauge.builder("warmgate.gate.coverage").baseUnit("ratio")
        .description("Share (0-1) of the hot set present in the canary's namespace")
        .register(registry);
    forecastPeak = MultiGauge.builder("warmgate.gate.forecast.peak")
        .baseUnit("reads.per.second")
        .description("Origin reads per second a release of the canary now would add at its "
            + "peak (forecast)")
        .register(registry);
    condition = MultiGauge.builder("warmgate.policy.condition")
        .description("1 for each of the Ready, L2Reachable, RolloutHeld and ChangesFollowed "
            + "conditions of a CachePolicy, labelled with its status and reason")
        .register(registry);
    agents = MultiGauge.builder("warmgate.policy.agents")
        .description("Agents registered in Valkey for the policy's schema hashes, as its status "
            + "last recorded")
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
    List<MultiGauge.Row<?>> conditions = new ArrayList<>();
    List<MultiGauge.Row<?>> peaks = new ArrayList<>();
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
        if (CONDITIONS.contains(c.getType())) {
          conditions.add(MultiGauge.Row.of(tags.and("condition", c.getType(),
              "status", Objects.requireNonNullElse(c.getStatus(), Condition.UNKNOWN),
              "reason", Objects.requireNonNullElse(c.getReason(), "")), 1));
        }
      }
      GateStatus gate = status.getGate();
      if (gate == null || !isRollout(policy)) {
        return;
      }
      if (gate.getPhase() != null) {
        phases.add(MultiGauge.Row.of(tags.and("phase", gate.getPhase().name()), 1));
      }
      helds.add(MultiGauge.Row.of(tags, heldSeconds(status, gate, now)));
      if (gate.getCoverage() != null) {
        coverages.add(MultiGauge.Row.of(tags, gate.getCoverage() / 100.0));
      }
      ForecastStatus forecast = gate.getForecast();
      if (forecast != null && forecast.getPeak() != null) {
        peaks.add(MultiGauge.Row.of(tags, forecast.getPeak()));
      }
      agentRows.add(MultiGauge.Row.of(tags, status.getKeySpaces().stream()
          .mapToInt(ns -> ns.getAgents() == null ? 0 : ns.getAgents()).sum()));
    });
    phase.register(phases, true);
    held.register(helds, true);
    coverage.register(coverages, true);
    forecastPeak.register(peaks, true);
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
    Optional<Condition> rolloutHeld = Conditions.find(status, Conditions.ROLLOUT_HELD);
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
