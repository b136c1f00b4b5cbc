package io.warmgate.operator.gate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.RolloutGate.ConditionValue;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.revision.NewPods;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/**
 * The gate for new pods that something other than a pause step holds: an Argo analysis that asks
 * the decision endpoint, Flagger's {@code confirm-promotion} webhook. One decision
 * ({@link GateDecision#warmth}) on the same observation as the pause-style gate; the operator
 * patches nothing of the workload.
 *
 * <p>{@link #read} only reads (the endpoints); {@link #run} is the reconciler's pass, which also
 * keeps the new pods' warm job and opens it when {@code mode: Preload} asks. Thread-safe.
 */
public final class NewPodsGate {

  /** The reason of {@code RolloutHeld=False} when the new pods wait on an external gate. */
  public static final String EXTERNAL_GATE = "ExternalGate";

  private final GateObserver observer;
  private final GateActions actions;

  public NewPodsGate(Clock clock, Duration agentGrace) {
    this.observer = new GateObserver(Objects.requireNonNull(clock, "clock"),
        Objects.requireNonNull(agentGrace, "agentGrace"));
    this.actions = new GateActions(clock, () -> false);
  }

  /**
   * The verdict on {@code pods}, writing nothing.
   *
   * @param valkey the policy's Valkey connection, or null when Valkey is not usable
   * @param valkeyProblem why Valkey is not usable (when {@code valkey} is null)
   */
  public WarmVerdict read(KubernetesClient client, CachePolicy policy, NewPods pods,
      ValkeyCommands valkey, String valkeyProblem) {
    GateObservation seen = observer.observeNewPods(client, policy, pods, valkey, valkeyProblem,
        false);
    Decision decision = GateDecision.warmth(seen.inputs(), pods.since());
    if (decision instanceof Decision.OpenWarmJob open) {
      decision = new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
          "held: the warm job of schema hash " + open.schemaHash() + " is not open yet; the "
              + "operator opens it on its next pass");
    }
    return verdict(seen, pods, decision);
  }

  /**
   * What one reconciler pass produced: the verdict and the status it implies.
   *
   * @param keySpaces the new {@code status.keySpaces}, the new pods' as Canary
   * @param warmed the new {@code Warmed} condition, or null (no new pods) to leave it as it is
   */
  public record Outcome(WarmVerdict verdict, GateStatus gate, List<KeySpaceStatus> keySpaces,
      ConditionValue warmed, ConditionValue held, boolean active) {}

  /**
   * The reconciler's pass for {@code pods}: observes with the warm job's upkeep, opens the job
   * when {@code mode: Preload} asks, and says what the policy's status shows.
   *
   * @param gatedBy such as {@code an Argo analysis (GET /gate/shop/deals)}, for the message of
   *     {@code RolloutHeld=False}
   */
  public Outcome run(KubernetesClient client, CachePolicy policy, NewPods pods,
      ValkeyCommands valkey, String valkeyProblem, String gatedBy) {
    GateObservation seen = observer.observeNewPods(client, policy, pods, valkey, valkeyProblem,
        true);
    Decision decision = GateDecision.warmth(seen.inputs(), pods.since());
    if (decision instanceof Decision.OpenWarmJob open) {
      seen = actions.openWarmJob(seen, open);
      decision = GateDecision.warmth(seen.inputs(), pods.since());
      if (decision instanceof Decision.OpenWarmJob) {
        decision = new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
            "held: the warm job of schema hash " + open.schemaHash() + " could not be read back");
      }
    }
    WarmVerdict verdict = verdict(seen, pods, decision);
    return new Outcome(verdict, gateStatus(seen, verdict), GateStatusMapper.keySpaces(seen),
        warmed(verdict),
        new ConditionValue(Condition.FALSE, EXTERNAL_GATE, "the operator holds nothing itself: "
            + pods.workload() + " waits on " + gatedBy + ", which asks the operator whether "
            + "its new pods are warm"),
        pods.inProgress());
  }

  private static WarmVerdict verdict(GateObservation seen, NewPods pods, Decision decision) {
    GateInputs.Observed observed = seen.inputs().observed();
    return new WarmVerdict(decision instanceof Decision.Release, pods, decision,
        observed.coverage(), seen.inputs().warmup().minCoverage(), observed.hitRatio(),
        observed.canarySchema(), observed.stableSchema(),
        GateStatusMapper.forecastStatus(observed, seen.inputs().warmup(), seen.inputs().now()));
  }

  private static GateStatus gateStatus(GateObservation seen, WarmVerdict verdict) {
    GateStatus gate = new GateStatus();
    Decision decision = verdict.decision();
    gate.setPhase(verdict.warm() && decision.phase() != GatePhase.TimedOut
        && decision.phase() != GatePhase.Skipped ? GatePhase.Promoted : decision.phase());
    gate.setMessage(decision.message());
    if (!verdict.pods().inProgress()) {
      gate.setStableSchemaHash(verdict.stableSchemaHash());
      return gate;
    }
    gate.setCanaryPodHash(verdict.pods().newPodHash());
    gate.setTarget(verdict.minCoverage());
    gate.setStableSchemaHash(verdict.stableSchemaHash());
    gate.setCanarySchemaHash(verdict.newSchemaHash());
    if (verdict.coverage() != null) {
      gate.setCoverage(verdict.coverage().percent());
    }
    gate.setForecast(verdict.forecast());
    if (verdict.pods().since() != null) {
      gate.setStartedAt(DateTimeFormatter.ISO_INSTANT.format(
          verdict.pods().since().truncatedTo(ChronoUnit.SECONDS)));
    }
    return gate;
  }

  private static ConditionValue warmed(WarmVerdict verdict) {
    Decision decision = verdict.decision();
    String revision = verdict.pods().newPodHash() == null ? ""
        : "new pods " + verdict.pods().newPodHash() + ": ";
    if (!verdict.pods().inProgress()) {
      return null;
    }
    if (decision instanceof Decision.Release && decision.phase() != GatePhase.TimedOut) {
      return new ConditionValue(Condition.TRUE, decision.reason(), revision + decision.message());
    }
    return new ConditionValue(Condition.FALSE, decision.reason(), revision + decision.message());
  }
}
