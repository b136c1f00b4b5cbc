package io.warmgate.operator.gate;

import io.warmgate.contract.Durations;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.model.WarmupSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * Everything {@link GateDecision} decides from, read from the cluster and Valkey, never from
 * memory, so that a restarted operator decides the same.
 *
 * @param rollout the Rollout as last observed
 * @param gateStep the step the gate holds at
 * @param warmup the policy's warm-up rules
 * @param previous the gate phase the policy's status records for this same canary pod hash, or
 *     null when it records none or another canary
 * @param holding whether the policy's status records the gate as holding that canary
 *     ({@code RolloutHeld=True}): then a {@code TimedOut} {@code previous} is a hold by
 *     {@code onTimeout: Hold}, not a canary the gate is done with
 * @param observed what Valkey says about the canary; {@link Observed#unreachable} when it cannot be
 *     read
 * @param now the current time
 * @param agentGrace how long after the pause began a canary may have no registered agent before
 *     the gate says why ({@code AgentNotInjected}, {@code AgentNotRegistered}, ...)
 * @param canaryPods what the canary's pods say, read only when no agent of the canary is
 *     registered; null when not read or not readable
 */
public record GateInputs(RolloutView rollout, GateStep gateStep, Warmup warmup,
    GatePhase previous, boolean holding, Observed observed, Instant now, Duration agentGrace,
    CanaryPods canaryPods) {

  /** Inputs without the canary's pods, the status recording no hold. */
  public GateInputs(RolloutView rollout, GateStep gateStep, Warmup warmup, GatePhase previous,
      Observed observed, Instant now, Duration agentGrace) {
    this(rollout, gateStep, warmup, previous, false, observed, now, agentGrace, null);
  }

  /** Inputs with the canary's pods, the status recording no hold. */
  public GateInputs(RolloutView rollout, GateStep gateStep, Warmup warmup, GatePhase previous,
      Observed observed, Instant now, Duration agentGrace, CanaryPods canaryPods) {
    this(rollout, gateStep, warmup, previous, false, observed, now, agentGrace, canaryPods);
  }

  /**
   * Whether the gate is done with this canary: the status records a finished phase
   * ({@code Promoted}, {@code Skipped}, {@code TimedOut}) and no hold, so the canary was released,
   * skipped, or released or aborted by {@code onTimeout}.
   */
  public boolean finished() {
    return previous != null && !holding && (previous == GatePhase.Promoted
        || previous == GatePhase.Skipped || previous == GatePhase.TimedOut);
  }

  /** These inputs with {@code observed} as what Valkey says. */
  public GateInputs withObserved(Observed observed) {
    return new GateInputs(rollout, gateStep, warmup, previous, holding, observed, now, agentGrace,
        canaryPods);
  }

  public GateInputs {
    Objects.requireNonNull(rollout, "rollout");
    Objects.requireNonNull(gateStep, "gateStep");
    Objects.requireNonNull(warmup, "warmup");
    Objects.requireNonNull(observed, "observed");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(agentGrace, "agentGrace");
  }

  /**
   * The warm-up rules with defaults applied and durations parsed; {@code minCoverage} and
   * {@code minHitRatio} are percentages, {@code originBudget} origin reads per second or null.
   */
  public record Warmup(WarmupMode mode, int hotSetSize, int preloadRate, int minCoverage,
      Integer minHitRatio, Duration hitRatioWindow, Duration maxWait, TimeoutAction onTimeout,
      boolean skipWhenSchemaUnchanged, Integer originBudget) {

    /** Rules without an origin budget. */
    public Warmup(WarmupMode mode, int hotSetSize, int preloadRate, int minCoverage,
        Integer minHitRatio, Duration hitRatioWindow, Duration maxWait, TimeoutAction onTimeout,
        boolean skipWhenSchemaUnchanged) {
      this(mode, hotSetSize, preloadRate, minCoverage, minHitRatio, hitRatioWindow, maxWait,
          onTimeout, skipWhenSchemaUnchanged, null);
    }

    /**
     * Reads {@code spec} (null means all defaults).
     *
     * @throws IllegalArgumentException if a duration does not parse; SpecChecks reports that
     *     before the gate runs
     */
    public static Warmup of(WarmupSpec spec) {
      WarmupSpec s = spec == null ? new WarmupSpec() : spec;
      WarmupSpec d = new WarmupSpec();
      return new Warmup(or(s.getMode(), d.getMode()), or(s.getHotSetSize(), d.getHotSetSize()),
          or(s.getPreloadRate(), d.getPreloadRate()), or(s.getMinCoverage(), d.getMinCoverage()),
          s.getMinHitRatio(),
          s.getHitRatioWindow() == null ? null : Durations.parse(s.getHitRatioWindow()),
          Durations.parse(or(s.getMaxWait(), d.getMaxWait())),
          or(s.getOnTimeout(), d.getOnTimeout()),
          or(s.getSkipWhenSchemaUnchanged(), d.getSkipWhenSchemaUnchanged()),
          s.getOriginBudget());
    }

    /**
     * Ids per second {@code originBudget} leaves for a preload: budget minus the forecast's
     * steady origin rate, at most {@code preloadRate}, 0 while the forecast is unknown (the
     * preload waits rather than guess); null without a budget.
     */
    public Double preloadCeiling(OriginForecast.Forecast forecast) {
      if (originBudget == null) {
        return null;
      }
      if (forecast == null || !forecast.known()) {
        return 0.0;
      }
      return Math.max(0, Math.min(preloadRate, originBudget - forecast.steady()));
    }

    private static <T> T or(T value, T fallback) {
      return value != null ? value : fallback;
    }
  }

  /**
   * What Valkey says about the rollout's namespaces.
   *
   * @param reachable whether Valkey could be read; every other field is empty when not
   * @param problem why Valkey could not be read, or null
   * @param canarySchemas schema hashes of the live agents with the canary's pod hash
   * @param stableSchemas schema hashes of the live agents with the stable pod hash
   * @param coverage the canary namespace's coverage, or null when not measured
   * @param hitRatio the canary's hit ratio over {@code warmup.hitRatioWindow}, or null when not
   *     measured or no requests were counted
   * @param warmJob the canary namespace's warm job, or null when none is open
   * @param hotSet the live hot set {@code coverage} was measured on, or null when it was not read
   *     (coverage not measured, or measured on the warm job's ids)
   * @param forecast the origin load a release now would add, or null when not forecast (no
   *     canary with one schema hash of its own)
   */
  public record Observed(boolean reachable, String problem, Set<String> canarySchemas,
      Set<String> stableSchemas, Coverage coverage, Double hitRatio, WarmJob warmJob,
      HotSetForecast.Cut hotSet, OriginForecast.Forecast forecast) {

    public Observed {
      canarySchemas = Set.copyOf(canarySchemas);
      stableSchemas = Set.copyOf(stableSchemas);
    }

    /** Without a forecast. */
    public Observed(boolean reachable, String problem, Set<String> canarySchemas,
        Set<String> stableSchemas, Coverage coverage, Double hitRatio, WarmJob warmJob,
        HotSetForecast.Cut hotSet) {
      this(reachable, problem, canarySchemas, stableSchemas, coverage, hitRatio, warmJob, hotSet,
          null);
    }

    /** Valkey could not be read, because of {@code problem}. */
    public static Observed unreachable(String problem) {
      return new Observed(false, problem, Set.of(), Set.of(), null, null, null, null, null);
    }

    /** This observation with {@code job} as the canary namespace's warm job. */
    public Observed withWarmJob(WarmJob job) {
      return new Observed(reachable, problem, canarySchemas, stableSchemas, coverage, hitRatio,
          job, hotSet, forecast);
    }

    /** The single schema hash of the canary's agents, or null when none or several. */
    public String canarySchema() {
      return canarySchemas.size() == 1 ? canarySchemas.iterator().next() : null;
    }

    /** The single schema hash of the stable agents, or null when none or several. */
    public String stableSchema() {
      return stableSchemas.size() == 1 ? stableSchemas.iterator().next() : null;
    }
  }
}
