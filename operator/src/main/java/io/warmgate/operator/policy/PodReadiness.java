package io.warmgate.operator.policy;

import io.warmgate.operator.gate.Decision;
import io.warmgate.operator.gate.NewPodsGate;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.readiness.WarmPods;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.status.Reasons;

/**
 * What {@code RolloutHeld} says for a Deployment whose pods wait on the
 * {@value PodInjector#READINESS_GATE} readiness gate: True while a gated pod waits (so the policy
 * keeps its finalizer, and deleting it lets the pods in), False once none does. Each transition
 * is an Event on the policy, as for a held Rollout. For a Deployment Flagger drives, a canary no
 * pod of which waits is held by Flagger, as {@link NewPodsGate} says.
 */
final class PodReadiness {

  /** The pod condition the Deployment's pods wait on. */
  static final String CONDITION = PodInjector.READINESS_GATE;
  /** The reason of {@code RolloutHeld=False} when no gated pod waits. */
  static final String NO_POD_WAITING = "NoPodWaiting";

  private PodReadiness() {}

  /**
   * Why an Organic policy's held pods may only get in at maxWait: a pod that is not Ready gets no
   * Service traffic, so nothing but a preload fills its new key space.
   */
  static String organicHint(PolicyPass pass, WarmVerdict verdict) {
    if (verdict.newSchemaHash() == null
        || verdict.newSchemaHash().equals(verdict.stableSchemaHash())) {
      return "";
    }
    WarmupSpec warmup = pass.spec().getWarmup();
    WarmupMode mode = warmup == null || warmup.getMode() == null ? new WarmupSpec().getMode()
        : warmup.getMode();
    return mode != WarmupMode.Organic ? "" : ". spec.warmup.mode is Organic, but a pod held "
        + "unready gets no Service traffic to fill its key space, so only maxWait and onTimeout "
        + "end a schema-changing release: set spec.warmup.mode: Preload";
  }

  static void report(PolicyPass pass, NewPodsGate.Outcome outcome, WarmPods.Result pods) {
    String workload = outcome.verdict().pods().workload();
    Decision decision = outcome.verdict().decision();
    if (pods.problem() != null) {
      // Keep what was held: not knowing the pods is no reason to drop the finalizer.
      pass.report(Conditions.ROLLOUT_HELD, Conditions.isTrue(pass.status(),
              Conditions.ROLLOUT_HELD) ? Condition.TRUE : Condition.FALSE,
          Reasons.RECONCILE_FAILED, pods.problem());
    } else if (pods.waiting() > 0) {
      pass.report(Conditions.ROLLOUT_HELD, Condition.TRUE, decision.reason(), pods.waiting()
          + " of " + pods.gated() + " gated pods of " + workload + " wait on " + CONDITION
          + ": " + decision.message() + organicHint(pass, outcome.verdict()));
    } else if (outcome.verdict().pods().flagger()) {
      // No pod waits on the operator: Flagger's confirm-promotion holds the canary.
      pass.report(Conditions.ROLLOUT_HELD, outcome.held().status(), outcome.held().reason(),
          outcome.held().message());
    } else if (pods.gated() == 0) {
      pass.report(Conditions.ROLLOUT_HELD, Condition.FALSE, NO_POD_WAITING, "no pod of "
          + workload + " carries the " + CONDITION + " readiness gate. The webhook adds it to "
          + "pods created while this policy exists; a pod's readiness gates are fixed when it "
          + "is created, so older pods are not held (restart the Deployment to gate them)");
    } else {
      pass.report(Conditions.ROLLOUT_HELD, Condition.FALSE, NO_POD_WAITING, "all "
          + pods.gated() + " gated pods of " + workload + " are let in: " + decision.message());
    }
  }
}
