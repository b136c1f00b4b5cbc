package io.warmgate.operator.gate;

/**
 * The CamelCase reasons of the gate's conditions ({@code Warmed}, {@code RolloutHeld}) and
 * Events.
 */
public final class GateReasons {

  /** No canary is in progress: the Rollout's current pod hash is the stable one. */
  public static final String NO_CANARY = "NoCanary";
  /** The Rollout has no step the gate can hold at. */
  public static final String NO_GATE_STEP = "NoGateStep";
  /** The canary has not reached the gate step yet. */
  public static final String BEFORE_GATE_STEP = "BeforeGateStep";
  /** The canary is at the gate step but not (or no longer) paused there. */
  public static final String NOT_PAUSED = "NotPaused";
  /** The canary went past the gate step. */
  public static final String PASSED_GATE = "PassedGate";
  /** The rollout was aborted. */
  public static final String ROLLOUT_ABORTED = "RolloutAborted";
  /** Held: the canary's agents have not registered yet, within the grace period. */
  public static final String WAITING_FOR_AGENTS = "WaitingForAgents";
  /**
   * Held: the canary's pods lack the injected {@code WARMGATE_*} variables (said at once when
   * the pods are readable), or no agent registered after the grace period and the pods could
   * not be read.
   */
  public static final String AGENT_NOT_INJECTED = "AgentNotInjected";
  /** Held: no pod with the canary's pod-template hash exists after the grace period. */
  public static final String NO_CANARY_PODS = "NoCanaryPods";
  /**
   * Held: the canary's pods are injected and Ready, but their agents are not in the registry
   * after the grace period (failing to reach Valkey, or not started by the app).
   */
  public static final String AGENT_NOT_REGISTERED = "AgentNotRegistered";
  /** Held: the canary's agents report more than one schema hash. */
  public static final String AMBIGUOUS_SCHEMA_HASH = "AmbiguousSchemaHash";
  /** Held: Valkey cannot be read, so warmth is unknown. */
  public static final String L2_UNREACHABLE = "L2Unreachable";
  /** Held: the hot set is empty, so coverage cannot be measured. */
  public static final String HOT_SET_EMPTY = "HotSetEmpty";
  /**
   * Held: the gate would release, but the Rollout is also paused for another reason (an
   * inconclusive analysis, a person's pause) that is not the gate's to approve.
   */
  public static final String PAUSED_FOR_ANOTHER_REASON = "PausedForAnotherReason";
  /** Held: the canary's namespace is filling. */
  public static final String WARMING = "Warming";
  /** maxWait passed before the canary was warm; the message says what onTimeout did. */
  public static final String TIMED_OUT = "TimedOut";
  /** Released: the canary's namespace met the warm-up criteria. */
  public static final String COVERAGE_REACHED = "CoverageReached";
  /**
   * Released: the canary met the warm-up criteria and the forecast origin load of the release
   * fits under {@code warmup.originBudget}.
   */
  public static final String WITHIN_ORIGIN_BUDGET = "WithinOriginBudget";
  /**
   * Held: {@code warmup.originBudget} is below the steady origin rate, so no release can fit
   * under it.
   */
  public static final String CANNOT_WARM = "CannotWarm";
  /** Held: {@code warmup.originBudget} is set and the release's origin load cannot be forecast. */
  public static final String FORECAST_UNKNOWN = "ForecastUnknown";
  /** Released at once: the canary has the stable schema hash. */
  public static final String SCHEMA_UNCHANGED = "SchemaUnchanged";

  /**
   * {@code Warmed} is unknown: the Rollout has a generation Argo Rollouts has not observed yet, so
   * its canary may be about to change.
   */
  public static final String REVISION_PENDING = "RevisionPending";

  private GateReasons() {}
}
