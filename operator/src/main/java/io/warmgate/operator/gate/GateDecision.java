package io.warmgate.operator.gate;

import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.WarmupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The rollout gate's decision table: a pure function from {@link GateInputs} to a
 * {@link Decision}. It acts (releases, aborts, opens a warm job) only when the rollout is held at
 * its gate step: canary pod hash ≠ stable, {@code currentStepIndex} = gate step, a
 * {@code CanaryPauseStep} pause condition, not aborted. Anything it cannot establish holds, and
 * so does a rollout also paused for another reason.
 */
public final class GateDecision {

  private GateDecision() {}

  /** Decides what to do about {@code in.rollout()}. */
  public static Decision decide(GateInputs in) {
    RolloutView r = in.rollout();
    boolean finished = in.finished();
    if (!r.canaryInProgress()) {
      if (finished) {
        // The canary this gate finished is now stable: keep showing how its gate ended.
        return new Decision.Pass(in.previous(), GateReasons.NO_CANARY,
            "no canary in progress; " + r.currentPodHash() + " passed the gate and is stable");
      }
      return new Decision.Pass(GatePhase.Idle, GateReasons.NO_CANARY,
          r.currentPodHash() == null ? "no canary in progress"
              : "no canary in progress; pods run " + r.currentPodHash());
    }
    String canary = "canary " + r.currentPodHash();
    if (r.abort()) {
      return finished && in.previous() == GatePhase.TimedOut
          ? new Decision.Pass(GatePhase.TimedOut, GateReasons.ROLLOUT_ABORTED,
              canary + " was aborted by onTimeout Abort after warmup.maxWait")
          : new Decision.Pass(GatePhase.Aborted, GateReasons.ROLLOUT_ABORTED,
              canary + " was aborted");
    }
    if (!in.gateStep().found()) {
      return new Decision.Pass(GatePhase.Waiting, GateReasons.NO_GATE_STEP,
          "cannot hold " + canary + ": " + in.gateStep().problem());
    }
    int gate = in.gateStep().index();
    Integer step = r.currentStepIndex();
    if (step == null || step < gate) {
      return new Decision.Pass(GatePhase.Waiting, GateReasons.BEFORE_GATE_STEP, canary
          + " is at step " + (step == null ? "?" : step) + "; the gate holds at step " + gate);
    }
    if (step > gate) {
      return new Decision.Pass(finished ? in.previous() : GatePhase.Promoted,
          GateReasons.PASSED_GATE, canary + " passed the gate step " + gate
              + (finished ? "" : " without the gate releasing it (promoted by hand?)"));
    }
    Instant heldSince = r.canaryPauseStart().orElse(null);
    if (heldSince == null) {
      return new Decision.Pass(finished ? in.previous() : GatePhase.Waiting,
          GateReasons.NOT_PAUSED, canary + " is at the gate step " + gate
              + (finished ? " and was released" : " but not paused there yet"));
    }
    Decision decision = held(in, heldSince);
    List<String> others = r.otherPauseReasons();
    if (decision instanceof Decision.Release release && !others.isEmpty()) {
      // Releasing would also approve what the other pause waits for (an inconclusive analysis).
      return new Decision.Hold(GatePhase.Waiting, GateReasons.PAUSED_FOR_ANOTHER_REASON,
          "held: the gate would release (" + release.message() + "), but the Rollout is also "
              + "paused for " + String.join(", ", others) + ", which is not the gate's to "
              + "approve; resolve it (kubectl argo rollouts promote or abort) and the gate "
              + "follows");
    }
    return decision;
  }

  /**
   * The warm criterion for new pods that something other than a pause step holds (an Argo
   * analysis, Flagger, a readiness gate) since {@code since}: the decision {@link #decide} takes
   * for a canary held at its gate step, without the step. A {@link Decision.Release} means warm
   * (or released by {@code onTimeout: Promote}); every other decision means not warm. No new
   * pods ({@code in.rollout()} shows no canary in progress) is a {@link Decision.Pass}.
   *
   * @param since when the new pods appeared; null counts as {@code in.now()}, so
   *     {@code warmup.maxWait} starts now
   */
  public static Decision warmth(GateInputs in, Instant since) {
    RolloutView r = in.rollout();
    if (!r.canaryInProgress()) {
      return new Decision.Pass(GatePhase.Idle, GateReasons.NO_CANARY,
          r.currentPodHash() == null ? "no new pods in progress"
              : "no new pods in progress; pods run " + r.currentPodHash());
    }
    if (r.abort()) {
      return new Decision.Pass(GatePhase.Aborted, GateReasons.ROLLOUT_ABORTED,
          "new pods " + r.currentPodHash() + " were aborted");
    }
    return held(in, since == null ? in.now() : since);
  }

  /** The rollout is held at its gate step since {@code heldSince}. */
  private static Decision held(GateInputs in, Instant heldSince) {
    GateInputs.Observed seen = in.observed();
    GateInputs.Warmup rules = in.warmup();
    String podHash = in.rollout().currentPodHash();
    Duration since = Duration.between(heldSince, in.now());
    Duration held = since.isNegative() ? Duration.ZERO : since;
    // Every hold ends at maxWait: what the gate cannot establish (Valkey unreadable, no agent,
    // several schema hashes) holds until then, and onTimeout applies as for a cold canary.
    if (!seen.reachable()) {
      String why = "Valkey cannot be read (" + seen.problem() + "), so the canary's warmth is "
          + "unknown";
      return afterMaxWait(in, held, why).orElseGet(() -> new Decision.Hold(
          keepOr(in, GatePhase.Waiting), GateReasons.L2_UNREACHABLE, "held: " + why));
    }
    if (seen.canarySchemas().isEmpty()) {
      Decision why = noAgent(in, held, podHash);
      boolean starting = held.compareTo(in.agentGrace()) < 0
          && GateReasons.WAITING_FOR_AGENTS.equals(why.reason());
      return starting ? why : afterMaxWait(in, held, hold(why)).orElse(why);
    }
    String schema = seen.canarySchema();
    if (schema == null) {
      String why = "canary pods " + podHash + " report several schema hashes "
          + seen.canarySchemas().stream().sorted().toList();
      return afterMaxWait(in, held, why).orElseGet(() -> new Decision.Hold(GatePhase.Waiting,
          GateReasons.AMBIGUOUS_SCHEMA_HASH,
          "held: " + why + "; one pod template must produce one schema hash"));
    }
    if (rules.skipWhenSchemaUnchanged() && schema.equals(seen.stableSchema())) {
      return new Decision.Release(GatePhase.Skipped, GateReasons.SCHEMA_UNCHANGED,
          "skipped: schema unchanged (" + schema + ")");
    }
    Integer budget = rules.originBudget();
    OriginForecast.Forecast forecast = seen.forecast();
    boolean forecastKnown = forecast != null && forecast.known();
    if (budget != null && forecastKnown && forecast.steady() > budget) {
      String why = format("warmup.originBudget %,d reads/s is below the steady origin rate "
          + "%,.0f reads/s, so no release can fit under it", budget, forecast.steady());
      return afterMaxWait(in, held, why).orElseGet(() -> new Decision.Hold(GatePhase.Warming,
          GateReasons.CANNOT_WARM, "held: " + why + "; raise warmup.originBudget above "
              + format("%,.0f", forecast.steady()) + " or remove it"));
    }
    Coverage coverage = seen.coverage();
    boolean covered = coverage != null && coverage.reaches(rules.minCoverage());
    boolean hitsOk = rules.minHitRatio() == null
        || (seen.hitRatio() != null && 100 * seen.hitRatio() >= rules.minHitRatio());
    boolean fits = budget == null || forecastKnown && forecast.total() <= budget;
    String hotSet = hotSet(seen);
    if (covered && hitsOk && fits) {
      return new Decision.Release(GatePhase.Promoted,
          budget == null ? GateReasons.COVERAGE_REACHED : GateReasons.WITHIN_ORIGIN_BUDGET,
          "released after " + seconds(held) + ": " + criteria(in, true)
              + (hotSet == null ? "" : "; " + hotSet));
    }
    if (rules.mode() == WarmupMode.Preload && seen.warmJob() == null && coverage != null
        && coverage.total() > 0) {
      return new Decision.OpenWarmJob(schema,
          seen.hotSet() != null ? seen.hotSet().size() : rules.hotSetSize(), rules.preloadRate());
    }
    Optional<Decision> late = afterMaxWait(in, held, "not warm");
    if (late.isPresent()) {
      return late.get();
    }
    if (budget != null && !forecastKnown) {
      return new Decision.Hold(GatePhase.Warming, GateReasons.FORECAST_UNKNOWN,
          "held: warmup.originBudget needs a forecast of the release's origin load and there is "
              + "none: " + (forecast == null ? "the canary's key space was not read"
              : forecast.unknown()) + "; warmup.onTimeout applies after warmup.maxWait");
    }
    if (coverage == null || coverage.total() == 0) {
      HotSetForecast.Cut cut = seen.hotSet();
      if (cut != null && cut.tracked() > 0) {
        return new Decision.Hold(GatePhase.Warming, GateReasons.HOT_SET_EMPTY, format(
            "held: the hot set is empty: none of the %,d tracked ids is expected to be read "
                + "within l2Ttl %s, so there is nothing to warm and coverage cannot be measured; "
                + "warmup.onTimeout applies after warmup.maxWait", cut.tracked(),
            seconds(cut.window())));
      }
      return new Decision.Hold(GatePhase.Warming, GateReasons.HOT_SET_EMPTY,
          "held: the hot set is empty, so coverage cannot be measured; the stable pods' agents "
              + "record hot ids as they serve traffic");
    }
    return new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
        "held: warming " + coverage.keys() + " (" + criteria(in, false) + ")"
            + (hotSet == null ? "" : "; " + hotSet)
            + (seen.warmJob() == null ? "" : "; " + seen.warmJob().summary())
            + tailHint(in));
  }

  /**
   * When the ids outside the hot set alone keep a release over the budget, which preload cannot
   * change: what to do about it; else empty.
   */
  private static String tailHint(GateInputs in) {
    Integer budget = in.warmup().originBudget();
    OriginForecast.Forecast f = in.observed().forecast();
    if (budget == null || f == null || !f.known() || f.staying() + f.tail() <= budget) {
      return "";
    }
    return format("; ids outside the hot set alone add %,.0f reads/s, which warming the hot set "
        + "does not lower: raise warmup.hotSetSize or warmup.originBudget", f.tail());
  }

  /**
   * Why no agent of canary pods {@code podHash} is registered, from the canary's pods when they
   * were read: not injected (said at once: injection happens at pod creation), no pods, pods
   * starting (not registered yet), or pods injected and Ready whose agents stay out of the
   * registry after the grace period (failing).
   */
  private static Decision noAgent(GateInputs in, Duration held, String podHash) {
    CanaryPods pods = in.canaryPods();
    boolean graceOver = held.compareTo(in.agentGrace()) >= 0;
    if (pods != null && pods.total() > 0 && pods.injected() == 0) {
      return new Decision.Hold(GatePhase.Waiting, GateReasons.AGENT_NOT_INJECTED, format(
          "held: none of the %d canary pods %s has the WARMGATE_* variables, so no agent can "
              + "register; label the pod template warmgate.io/cache-policy=<policy>, check that "
              + "the injection webhook runs (kubectl describe pod), then restart the canary",
          pods.total(), podHash));
    }
    if (!graceOver) {
      return new Decision.Hold(GatePhase.Waiting, GateReasons.WAITING_FOR_AGENTS,
          "held: waiting for the agents of canary pods " + podHash + " to register");
    }
    if (pods == null) {
      return new Decision.Hold(GatePhase.Waiting, GateReasons.AGENT_NOT_INJECTED,
          "held: no agent registered for canary pods " + podHash + " in " + seconds(held)
              + "; check that they are labelled warmgate.io/cache-policy=<policy> and that the "
              + "webhook injected WARMGATE_* variables (kubectl describe pod)");
    }
    if (pods.total() == 0) {
      return new Decision.Hold(GatePhase.Waiting, GateReasons.NO_CANARY_PODS,
          "held: no pod with rollouts-pod-template-hash=" + podHash + " exists after "
              + seconds(held) + "; check the canary ReplicaSet's events (kubectl describe rs)");
    }
    if (pods.ready() == 0) {
      return new Decision.Hold(GatePhase.Waiting, GateReasons.WAITING_FOR_AGENTS, format(
          "held: waiting for the agents of canary pods %s to register: %d of %d pods injected, "
              + "none Ready yet", podHash, pods.injected(), pods.total()));
    }
    return new Decision.Hold(GatePhase.Waiting, GateReasons.AGENT_NOT_REGISTERED, format(
        "held: %d of %d canary pods %s are injected and Ready but no agent registered in %s; "
            + "the agents are failing: check the pods' logs for Valkey errors (address, "
            + "password, TLS) and that the app builds its cache with WarmGate.fromEnvironment()",
        pods.ready(), pods.total(), podHash, seconds(held)));
  }

  /** The cause in a hold's message, for the timeout message: "held: x" → "x". */
  private static String hold(Decision decision) {
    String message = decision.message();
    return message.startsWith("held: ") ? message.substring("held: ".length()) : message;
  }

  /**
   * What {@code warmup.onTimeout} does once the canary has been held for {@code warmup.maxWait}
   * for the reason {@code why}; empty before that.
   */
  private static Optional<Decision> afterMaxWait(GateInputs in, Duration held, String why) {
    GateInputs.Warmup rules = in.warmup();
    if (held.compareTo(rules.maxWait()) < 0) {
      return Optional.empty();
    }
    String notWarm = why + " after " + seconds(held) + " (warmup.maxWait "
        + seconds(rules.maxWait()) + "; " + criteria(in, true) + ")";
    return Optional.of(switch (rules.onTimeout()) {
      case Promote -> new Decision.Release(GatePhase.TimedOut, GateReasons.TIMED_OUT,
          "released by onTimeout Promote: " + notWarm);
      case Abort -> new Decision.Abort(GateReasons.TIMED_OUT,
          "aborted by onTimeout Abort: " + notWarm);
      case Hold -> new Decision.Hold(GatePhase.TimedOut, GateReasons.TIMED_OUT,
          "held by onTimeout Hold: " + notWarm + "; promote or abort the rollout by hand");
    });
  }

  /**
   * How the ids coverage is measured on were chosen: the live forecast, else what the warm job
   * recorded when it opened; null when neither says.
   */
  private static String hotSet(GateInputs.Observed seen) {
    if (seen.hotSet() != null) {
      return seen.hotSet().describe();
    }
    return seen.warmJob() == null ? null : seen.warmJob().hotSetText();
  }

  /**
   * Such as {@code coverage 24.1% of 80% needed, hit ratio 0.52 of 0.90 needed}; with
   * {@code keys}, the measured counts follow the percentage ({@code 24.1% (241/1,000 keys)}), as
   * the release and timeout messages record them.
   */
  private static String criteria(GateInputs in, boolean keys) {
    GateInputs.Observed seen = in.observed();
    GateInputs.Warmup rules = in.warmup();
    String text = "coverage "
        + (seen.coverage() == null ? "unknown" : format("%.1f%%", seen.coverage().percent())
            + (keys ? " (" + seen.coverage().keys() + ")" : ""))
        + " of " + rules.minCoverage() + "% needed";
    if (rules.minHitRatio() != null) {
      text += ", hit ratio " + (seen.hitRatio() == null ? "unknown"
          : format("%.1f%%", 100 * seen.hitRatio())) + " of " + rules.minHitRatio()
          + "% needed";
    }
    if (rules.originBudget() != null) {
      OriginForecast.Forecast f = seen.forecast();
      text += f == null || !f.known()
          ? format(", origin load unknown of %,d reads/s budget", rules.originBudget())
          : f.leaving() > 0
          ? format(", origin %,.0f now − %,.0f ending with the replaced pods + %,.0f peak = "
              + "%,.0f of %,d reads/s budget", f.steady(), f.leaving(), f.peak(), f.total(),
              rules.originBudget())
          : format(", origin %,.0f now + %,.0f peak = %,.0f of %,d reads/s budget", f.steady(),
              f.peak(), f.total(), rules.originBudget());
    }
    return text;
  }

  /** The recorded phase while the gate holds this canary as Warming or TimedOut, else fallback. */
  private static GatePhase keepOr(GateInputs in, GatePhase fallback) {
    GatePhase previous = in.previous();
    return in.holding() && (previous == GatePhase.Warming || previous == GatePhase.TimedOut)
        ? previous : fallback;
  }

  /** Such as {@code 38 s} or {@code 10m 5s}. */
  static String seconds(Duration d) {
    long s = d.toSeconds();
    return s < 60 ? s + " s" : (s / 60) + "m" + (s % 60 == 0 ? "" : " " + (s % 60) + "s");
  }

  private static String format(String pattern, Object... values) {
    return String.format(Locale.ROOT, pattern, values);
  }
}
