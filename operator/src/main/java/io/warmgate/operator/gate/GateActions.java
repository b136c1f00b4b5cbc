package io.warmgate.operator.gate;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisException;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.status.Conditions;
import java.time.Clock;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the gate does about a decision: opens the canary's warm job, releases or aborts the
 * Rollout through {@link RolloutPatcher} (only while this replica leads), ends keep-warm after a
 * release, and records an Event per transition on the policy and the Rollout.
 */
final class GateActions {

  private static final Logger log = LoggerFactory.getLogger(GateActions.class);

  private final Clock clock;
  private final BooleanSupplier leading;

  /**
   * @param leading whether this replica still holds the leader Lease, asked right before the
   *     Rollout is patched
   */
  GateActions(Clock clock, BooleanSupplier leading) {
    this.clock = clock;
    this.leading = leading;
  }

  /**
   * Opens the warm job {@code open} asks for and returns {@code seen} with the job as read back;
   * with Valkey unreachable when that failed.
   */
  GateObservation openWarmJob(GateObservation seen, Decision.OpenWarmJob open) {
    GateInputs.Observed observed = seen.inputs().observed();
    RolloutView view = seen.view();
    try {
      String hotSet = observed.hotSet() == null ? null : observed.hotSet().describe();
      if (WarmJobs.open(seen.valkey().sync(), seen.keys(), open.schemaHash(), open.target(),
          open.rate(), hotSet, view.currentPodHash(), seen.inputs().now(),
          seen.inputs().warmup().preloadCeiling(observed.forecast()))) {
        log.info("Opened the warm job of schema hash {} for Rollout {} ({} ids at {}/s; {})",
            open.schemaHash(), view.id(), open.target(), open.rate(), hotSet);
      }
      return seen.withObserved(observed.withWarmJob(
          WarmJobs.read(seen.valkey().sync(), seen.keys(), open.schemaHash())));
    } catch (RedisException e) {
      return seen.withObserved(GateInputs.Observed.unreachable(String.valueOf(e.getMessage())));
    }
  }

  /**
   * Carries out {@code decision}: patches the Rollout for a release or an abort, and records the
   * Event of a new release, abort or hold.
   *
   * @return false when a release or abort was not applied (the Rollout changed meanwhile, or the
   *     Lease was lost): nothing new is to be recorded, and the gate decides again shortly
   */
  boolean apply(KubernetesClient client, GateObservation seen, Decision decision) {
    RolloutView view = seen.view();
    GateEvents events = new GateEvents(client, clock);
    if (decision instanceof Decision.Release || decision instanceof Decision.Abort) {
      int step = seen.inputs().gateStep().index();
      RolloutPatcher patcher = new RolloutPatcher(client);
      boolean applied = leading.getAsBoolean() && (decision instanceof Decision.Release
          ? patcher.release(view, step)
          : patcher.abort(view, step));
      if (!applied) {
        return false;
      }
      log.info("Rollout {}: {}", view.id(), decision.message());
      GateInputs.Observed observed = seen.inputs().observed();
      if (decision instanceof Decision.Release && observed.warmJob() != null
          && observed.canarySchemas().size() == 1) {
        endKeepWarm(seen, observed.canarySchemas().iterator().next());
      }
      if (!seen.repeats(decision)) {
        events.record(seen.policy(), view, new GateEvents.GateEvent(
            decision.phase() == GatePhase.TimedOut, decision.reason(), decision.message()));
      }
    } else if (decision instanceof Decision.Hold hold) {
      Optional<Condition> held = Conditions.find(seen.recorded(), Conditions.ROLLOUT_HELD);
      boolean changed = held.map(c -> !Condition.TRUE.equals(c.getStatus())
          || !hold.reason().equals(c.getReason())).orElse(true);
      if (changed) {
        log.info("Rollout {}: {}", view.id(), decision.message());
        events.record(seen.policy(), view, new GateEvents.GateEvent(warning(decision.reason()),
            decision.reason(), decision.message()));
      }
    }
    return true;
  }

  /** Best effort: keep-warm ends by itself {@link WarmJobs#KEEP_WARM} after the last renewal. */
  private static void endKeepWarm(GateObservation seen, String schema) {
    try {
      WarmJobs.endKeepWarm(seen.valkey().sync(), seen.keys(), schema, seen.inputs().now());
    } catch (RedisException e) {
      log.debug("Ending keep-warm of schema hash {} failed; it lapses by itself", schema, e);
    }
  }

  private static boolean warning(String reason) {
    return !GateReasons.WARMING.equals(reason) && !GateReasons.WAITING_FOR_AGENTS.equals(reason);
  }
}
