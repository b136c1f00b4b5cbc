package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The rollout gate for one CachePolicy and its Rollout, one pass at a time: observe
 * ({@link GateObserver}), decide ({@link GateDecision}), act ({@link GateActions}), and say what
 * the policy's status should show ({@link GateStatusMapper}).
 *
 * <p>Stateless between calls: every input comes from the Rollout, Valkey and the policy's status,
 * so a restarted or newly elected operator continues where the last one stopped. Thread-safe.
 */
public final class RolloutGate {

  /** How long a held canary may have no registered agent before {@code AgentNotInjected}. */
  public static final Duration DEFAULT_AGENT_GRACE = Duration.ofSeconds(30);

  private final GateObserver observer;
  private final GateActions actions;

  /**
   * @param clock the clock for maxWait, the grace period and timestamps
   * @param agentGrace see {@link #DEFAULT_AGENT_GRACE}
   * @param leading whether this replica still holds the leader Lease, asked right before the
   *     Rollout is patched
   */
  public RolloutGate(Clock clock, Duration agentGrace, BooleanSupplier leading) {
    Objects.requireNonNull(clock, "clock");
    this.observer = new GateObserver(clock, Objects.requireNonNull(agentGrace, "agentGrace"));
    this.actions = new GateActions(clock, Objects.requireNonNull(leading, "leading"));
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
      GenericKubernetesResource rollout, ValkeyCommands valkey, String valkeyProblem) {
    GateObservation seen = observer.observe(client, policy, rollout, valkey, valkeyProblem);
    Decision decision = GateDecision.decide(seen.inputs());
    if (decision instanceof Decision.OpenWarmJob open) {
      seen = actions.openWarmJob(seen, open);
      decision = decideWithJob(seen, open);
    }
    return actions.apply(client, seen, decision) ? GateStatusMapper.outcome(seen, decision)
        : GateStatusMapper.unchanged(seen, decision);
  }

  /** Decides again once the warm job {@code open} asked for is open. */
  private static Decision decideWithJob(GateObservation seen, Decision.OpenWarmJob open) {
    Decision decision = GateDecision.decide(seen.inputs());
    if (decision instanceof Decision.OpenWarmJob) {
      // The job vanished right after opening (expired or deleted): hold and look again.
      return new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
          "held: the warm job of schema hash " + open.schemaHash() + " could not be read back");
    }
    return decision;
  }
}
