package io.warmgate.sim.fleet;

import io.lettuce.core.ScoredValue;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.gate.Coverage;
import io.warmgate.operator.gate.Decision;
import io.warmgate.operator.gate.GateDecision;
import io.warmgate.operator.gate.GateInputs;
import io.warmgate.operator.gate.GateStep;
import io.warmgate.operator.gate.HotSetForecast;
import io.warmgate.operator.gate.NamespaceStats;
import io.warmgate.operator.gate.OriginForecast;
import io.warmgate.operator.gate.RolloutView;
import io.warmgate.operator.gate.TailShape;
import io.warmgate.operator.gate.WarmJob;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The operator's own rollout gate, driven by the fleet simulator instead of a cluster: the hot set
 * comes from {@link HotSetForecast} and each evaluation from {@link GateDecision}, both pure, fed
 * with what the simulated Valkey holds.
 *
 * <p>The simulated rollout has one canary step, an indefinite pause where the gate holds; the
 * canary's agents report schema hash {@link #CANARY_SCHEMA}, the stable ones {@link #STABLE_SCHEMA}.
 * Not thread-safe.
 */
final class SimulatedGate {

  static final String CANARY_SCHEMA = "new-schema";
  static final String STABLE_SCHEMA = "old-schema";
  private static final ControlKeys KEYS = new ControlKeys("deals");

  /** What one evaluation decided: the decision's kind, phase, reason and message. */
  public record Verdict(Kind kind, GatePhase phase, String reason, String message, int target) {}

  /** The decision's kind, without the operator's types. */
  public enum Kind { HOLD, RELEASE, ABORT, OPEN_WARM_JOB, PASS }

  private final GateInputs.Warmup warmup;
  private final Duration l2Ttl;
  private final RolloutView rollout;
  private final GateStep step;
  private HotSetForecast.Cut cut;
  private List<String> forecastIds = List.of();
  private TailShape tailShape;
  private GatePhase previous;
  private boolean holding;

  /**
   * A gate holding a canary paused at {@code pausedAt}.
   *
   * @param l2Ttl the policy's {@code l2Ttl}: the forecast's window
   * @param originBudget the policy's {@code warmup.originBudget}, reads/s; null when unset
   */
  public SimulatedGate(WarmupMode mode, int hotSetSize, int preloadRate, int minCoverage,
      Duration maxWait, TimeoutAction onTimeout, Duration l2Ttl, Integer originBudget,
      Instant pausedAt) {
    this.warmup = new GateInputs.Warmup(mode, hotSetSize, preloadRate, minCoverage, null, null,
        maxWait, onTimeout, true, originBudget);
    this.l2Ttl = l2Ttl;
    List<RolloutView.Step> steps = List.of(new RolloutView.Step(true, true));
    this.rollout = new RolloutView("sim", "deal-service", "uid", "1", steps, "canary", "stable", 0,
        List.of(new RolloutView.PauseCondition(RolloutView.CANARY_PAUSE_STEP, pausedAt)), false);
    this.step = GateStep.resolve(steps, null);
  }

  /**
   * Chooses the hot set from the tracked ids as the operator does: the top {@code hotSetSize}
   * tracked ids, cut by the forecast to those expected to be read within {@code l2Ttl}.
   *
   * @param ranked tracked ids, hottest first
   * @param scores their scores relative to {@code landmark}, as the agents store them
   * @param since when the agents started recording ({@code T:hot:meta} field {@code since})
   * @return the chosen ids, hottest first
   */
  public List<String> chooseHotSet(List<String> ranked, double[] scores, Instant since,
      Instant landmark, Duration halfLife, int samplePeriod, Instant now) {
    List<ScoredValue<String>> top = new ArrayList<>();
    for (int i = 0; i < ranked.size() && i < warmup.hotSetSize(); i++) {
      top.add(ScoredValue.just(scores[i], ranked.get(i)));
    }
    cut = HotSetForecast.of(KEYS, top, String.valueOf(landmark.toEpochMilli()),
        Map.of("since", String.valueOf(since.toEpochMilli()),
            "halfLifeMs", String.valueOf(halfLife.toMillis()),
            "samplePeriod", String.valueOf(samplePeriod)), now, l2Ttl);
    // What every forecast of this hot set checks, and how its tail falls: fixed with the cut.
    forecastIds = NamespaceStats.forecastIds(CANARY_SCHEMA, cut.ids());
    tailShape = TailShape.of(cut.rates());
    return cut.ids();
  }

  /** How the hot set was chosen, as the gate's messages say it. */
  public String hotSetText() {
    return cut == null ? "no hot set chosen" : cut.describe();
  }

  /**
   * The origin load releasing now would add, as the operator forecasts it: the hot set probed
   * with the operator's own choice of ids ({@link NamespaceStats#FORECAST_HEAD} hottest one by
   * one, a fixed sample of {@link NamespaceStats#FORECAST_SAMPLE} of the rest), each id's rate
   * from the agents' scores ({@link HotSetForecast}).
   *
   * @param present whether an id's value is in the canary's namespace
   * @param requestRate the fleet's lookups per second
   * @param canaryHitRatio the share of the canary's lookups L1 or L2 answers
   * @param steady origin reads per second now, preload excluded
   * @param leaving the part of {@code steady} the stable key space costs
   * @param releasedShare the share of lookups the release moves
   */
  public OriginForecast.Forecast forecast(Predicate<String> present, double requestRate,
      Double canaryHitRatio, double steady, double leaving,
      double releasedShare) {
    if (cut == null || cut.rates().isEmpty()) {
      return OriginForecast.Forecast.unknown("no hot set with rates chosen");
    }
    List<OriginForecast.Probe> probes = NamespaceStats.probes(cut.ids(), cut.rates(),
        forecastIds, present);
    return OriginForecast.of(new OriginForecast.Inputs(probes, requestRate,
        tailShape, canaryHitRatio, steady, Math.min(steady, leaving), releasedShare,
        l2Ttl));
  }

  /**
   * The preload rate the operator writes into the warm job under {@code forecast}: at most
   * {@code preloadRate}, and with an origin budget at most the budget less the steady rate
   * (the agent's AIMD moves below it when the origin's latency rises); null without a budget.
   */
  public Double preloadCeiling(OriginForecast.Forecast forecast) {
    return warmup.preloadCeiling(forecast);
  }

  /**
   * Evaluates the gate at {@code now}.
   *
   * @param present hot-set ids whose value is in the canary's namespace
   * @param jobState the warm job's state ({@code Running}, {@code Done}) or null when none is open
   * @param filled ids the warm job has loaded
   * @param forecast the origin forecast of releasing now, or null
   */
  public Verdict evaluate(Instant now, long present, String jobState, long filled,
      OriginForecast.Forecast forecast) {
    int total = cut == null ? 0 : cut.size();
    Coverage coverage = new Coverage(present, total);
    WarmJob job = jobState == null ? null
        : new WarmJob(jobState, total, filled, 0, null, hotSetText(), "canary");
    GateInputs.Observed seen = new GateInputs.Observed(true, null, Set.of(CANARY_SCHEMA),
        Set.of(STABLE_SCHEMA), coverage, null, job, job == null ? cut : null, forecast);
    Decision d = GateDecision.decide(new GateInputs(rollout, step, warmup, previous, holding,
        seen, now, Duration.ofSeconds(30), null));
    previous = d.phase();
    holding = d instanceof Decision.Hold || d instanceof Decision.OpenWarmJob;
    Kind kind;
    int target = 0;
    if (d instanceof Decision.Hold) {
      kind = Kind.HOLD;
    } else if (d instanceof Decision.Release) {
      kind = Kind.RELEASE;
    } else if (d instanceof Decision.Abort) {
      kind = Kind.ABORT;
    } else if (d instanceof Decision.OpenWarmJob open) {
      kind = Kind.OPEN_WARM_JOB;
      target = open.target();
    } else {
      kind = Kind.PASS;
    }
    return new Verdict(kind, d.phase(), d.reason(), d.message(), target);
  }
}
