package io.warmgate.sim.fleet;

import io.warmgate.operator.gate.OriginForecast;
import io.warmgate.operator.model.TimeoutAction;
import io.warmgate.operator.model.WarmupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.DoubleFunction;
import java.util.function.DoubleUnaryOperator;

/**
 * Plays the operator's gate over a held canary once a {@link SimParams#GATE_INTERVAL}, from the
 * canary's pause: the real {@code GateDecision} decides from the coverage the simulated namespace
 * reaches and, with an origin budget, from the operator's own {@code OriginForecast} of what
 * releasing then would add. The canary's agent counts as registered, and the pod as paused at the
 * gate step, when it starts (t = 0).
 */
final class GatePlay {

  /** Virtual time 0, as an instant the gate reads. */
  static final Instant ZERO = Instant.parse("2026-01-01T00:00:00Z");

  private final SimParams p;
  private final WarmupMode mode;
  private final Integer originBudget;

  /**
   * @param originBudget the policy's {@code warmup.originBudget}, reads/s; null when unset
   */
  GatePlay(SimParams p, WarmupMode mode, Integer originBudget) {
    this.p = p;
    this.mode = mode;
    this.originBudget = originBudget;
  }

  SimulatedGate gate() {
    return new SimulatedGate(mode, p.hotSetSize(), p.preloadRate(), SimParams.MIN_COVERAGE,
        Duration.ofSeconds((long) SimParams.MAX_WAIT), TimeoutAction.Promote,
        Duration.ofSeconds((long) SimParams.L2_TTL), originBudget, ZERO);
  }

  /**
   * When the gate opens the warm job, with nothing in the canary's namespace yet, or
   * {@code NaN} when it does not at its first evaluation.
   */
  double warmJobOpens(SimulatedGate gate, OriginForecast.Forecast atStart) {
    SimulatedGate.Verdict v = gate.evaluate(ZERO, 0, null, 0, atStart);
    return v.kind() == SimulatedGate.Kind.OPEN_WARM_JOB ? 0 : Double.NaN;
  }

  /**
   * Evaluates the gate every second until it releases or {@code maxWait} has passed.
   *
   * @param presentAt when each hot-set id first held a value in the canary's namespace
   * @param traffic what the forecast reads of the fleet at each evaluation
   */
  SimResult.GateOutcome release(SimulatedGate gate, HotSet hotSet, double[] presentAt,
      double hotSetShare, Traffic traffic) {
    double[] sorted = presentAt.clone();
    Arrays.sort(sorted);
    boolean opened = false;
    for (double t = 0; t <= SimParams.MAX_WAIT + 2 * SimParams.GATE_INTERVAL;
        t += SimParams.GATE_INTERVAL) {
      long present = countAtMost(sorted, t);
      String state = null;
      long filled = 0;
      if (opened && hotSet.preloads()) {
        for (int j = 0; j < hotSet.size(); j++) {
          if (hotSet.preloadAt(j) < t) {
            filled++;
          }
        }
        state = filled >= hotSet.size() ? "Done" : "Running";
      } else if (opened) {
        state = "Open";
      }
      OriginForecast.Forecast forecast = forecast(gate, hotSet, presentAt, t, traffic,
          (p.pods() - 1.0) / p.pods());
      Instant now = ZERO.plusMillis(Math.round(t * 1000));
      SimulatedGate.Verdict v = gate.evaluate(now, present, state, filled, forecast);
      if (v.kind() == SimulatedGate.Kind.OPEN_WARM_JOB) {
        opened = true;
        v = gate.evaluate(now, present, "Open", 0, forecast);
      }
      if (v.kind() == SimulatedGate.Kind.RELEASE || v.kind() == SimulatedGate.Kind.ABORT) {
        double coverage = hotSet.size() == 0 ? 0 : 100.0 * present / hotSet.size();
        return new SimResult.GateOutcome(t, v.phase().name(), coverage, v.message(),
            hotSet.size(), hotSetShare, forecast);
      }
    }
    throw new IllegalStateException("the gate neither released nor aborted within maxWait "
        + SimParams.MAX_WAIT + " s with onTimeout Promote");
  }

  /**
   * The operator's forecast at {@code t} of a release that moves {@code releasedShare} of the
   * lookups: the hot-set ids present in the canary's namespace by then, the fleet's traffic as
   * the agents' statistics give it.
   */
  OriginForecast.Forecast forecast(SimulatedGate gate, HotSet hotSet, double[] presentAt,
      double t, Traffic traffic, double releasedShare) {
    return gate.forecast(id -> presentAt[hotSet.position(Integer.parseInt(id))] <= t,
        p.lookupsPerSecond(), traffic.canaryHitRatioAt().apply(t),
        traffic.steadyAt().applyAsDouble(t),
        traffic.leavingAt().applyAsDouble(t), releasedShare);
  }

  /**
   * What the agents' statistics tell the operator about the fleet.
   *
   * @param steadyAt origin reads per second over the minute before a time, preload excluded
   * @param leavingAt the old (stable) key space's part of them
   * @param canaryHitRatioAt the canary's hit ratio over the minute before a time, null before
   *     the canary has served a minute
   */
  record Traffic(DoubleUnaryOperator steadyAt,
      DoubleUnaryOperator leavingAt, DoubleFunction<Double> canaryHitRatioAt) {}

  private static long countAtMost(double[] sorted, double t) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
