package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.warmgate.operator.gate.RolloutGate.ConditionValue;
import io.warmgate.operator.gate.RolloutGate.Outcome;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.GateStatus;
import io.warmgate.operator.model.HotIdStatus;
import io.warmgate.operator.model.KeySpaceRole;
import io.warmgate.operator.model.KeySpaceStatus;
import io.warmgate.operator.status.Conditions;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The gate's last step: what the policy's status shows after a decision ({@code status.gate},
 * {@code status.keySpaces}, {@code Warmed} and {@code RolloutHeld}). A canary the gate was already
 * done with keeps what its status recorded; one a person promoted or aborted while the gate held
 * it is reported anew.
 */
final class GateStatusMapper {

  private GateStatusMapper() {}

  /** The status after {@code decision} was carried out. */
  static Outcome outcome(GateObservation seen, Decision decision) {
    RolloutView view = seen.view();
    boolean done = seen.inputs().finished();
    GateStatus gate = gateStatus(seen, decision);
    gate.setRolloutGeneration(seen.rollout().getMetadata().getGeneration());
    boolean active = view.canaryInProgress() && !view.abort()
        && !(decision instanceof Decision.Pass && RecordedGate.FINISHED.contains(decision.phase()));
    boolean kept = decision instanceof Decision.Pass && done;
    ConditionValue recordedHeld = current(seen.recorded(), Conditions.ROLLOUT_HELD);
    ConditionValue held = kept && recordedHeld != null ? recordedHeld
        : new ConditionValue(decision instanceof Decision.Hold ? Condition.TRUE : Condition.FALSE,
            decision.reason(), decision.message());
    return new Outcome(gate, keySpaces(seen), decision, warmed(seen, decision), held, active);
  }

  /**
   * The status as recorded, for a release or abort that was not applied: the gate decides again
   * shortly, so it stays active.
   */
  static Outcome unchanged(GateObservation seen, Decision decision) {
    CachePolicyStatus recorded = seen.recorded();
    return new Outcome(seen.before(), recorded.getKeySpaces(), decision,
        current(recorded, Conditions.WARMED), current(recorded, Conditions.ROLLOUT_HELD), true);
  }

  /** {@code status.keySpaces}: Stable first, then Canary, then the others, each by hash. */
  static List<KeySpaceStatus> keySpaces(GateObservation seen) {
    if (seen.keySpaces() == null) {
      return seen.recorded().getKeySpaces();
    }
    RolloutView view = seen.view();
    return seen.keySpaces().stream().map(space -> {
      KeySpaceStatus ns = new KeySpaceStatus();
      ns.setSchemaHash(space.schemaHash());
      if (space.agents().stream().anyMatch(a -> a.podTemplateHash().equals(view.stableRs()))) {
        ns.setRole(KeySpaceRole.Stable);
      } else if (view.canaryInProgress() && space.agents().stream()
          .anyMatch(a -> a.podTemplateHash().equals(view.currentPodHash()))) {
        ns.setRole(KeySpaceRole.Canary);
      }
      ns.setAgents(space.agents().size());
      ns.setKeys(space.keys());
      Double ratio = space.hitRatio();
      ns.setHitRatio(ratio == null ? null : Math.round(ratio * 1000) / 10.0);
      return ns;
    }).sorted(Comparator.comparing((KeySpaceStatus n) -> n.getRole() == null ? 2
        : n.getRole().ordinal()).thenComparing(KeySpaceStatus::getSchemaHash))
        .collect(Collectors.toList());
  }

  /** {@code status.gate}; what the recorded one says is kept when it is about the same canary. */
  private static GateStatus gateStatus(GateObservation seen, Decision decision) {
    RolloutView view = seen.view();
    GateInputs.Observed observed = seen.inputs().observed();
    GateStatus same = seen.sameCanary() ? seen.before() : null;
    Instant now = seen.inputs().now();
    GateStatus gate = new GateStatus();
    gate.setPhase(decision.phase());
    gate.setMessage(decision.message());
    if (!view.canaryInProgress()) {
      if (same != null && RecordedGate.FINISHED.contains(decision.phase())) {
        copy(same, gate);
        gate.setPhase(decision.phase());
        gate.setMessage(same.getMessage());
      } else {
        gate.setStableSchemaHash(observed.stableSchema());
      }
      return gate;
    }
    if (same != null) {
      copy(same, gate);
      gate.setPhase(decision.phase());
      gate.setMessage(decision.message());
    }
    gate.setCanaryPodHash(view.currentPodHash());
    gate.setTarget(seen.inputs().warmup().minCoverage());
    if (observed.stableSchema() != null) {
      gate.setStableSchemaHash(observed.stableSchema());
    }
    if (observed.canarySchema() != null) {
      gate.setCanarySchemaHash(observed.canarySchema());
    }
    if (observed.coverage() != null) {
      gate.setCoverage(observed.coverage().percent());
    }
    gate.setForecast(forecastStatus(observed, seen.inputs().warmup(), now));
    view.canaryPauseStart().ifPresent(start -> gate.setStartedAt(timestamp(start)));
    if ((decision instanceof Decision.Release || decision instanceof Decision.Abort)
        && !seen.repeats(decision)) {
      gate.setReleasedAt(timestamp(now));
      gate.setReleasedCoverage(
          observed.coverage() == null ? null : observed.coverage().percent());
    }
    if (decision instanceof Decision.Pass && seen.inputs().finished() && same != null) {
      gate.setMessage(same.getMessage());
    }
    return gate;
  }

  /**
   * {@code status.gate.forecast} from what was observed; null when nothing was forecast (no canary
   * with a schema hash of its own, Valkey unreadable).
   */
  static ForecastStatus forecastStatus(GateInputs.Observed observed, GateInputs.Warmup warmup,
      Instant now) {
    OriginForecast.Forecast f = observed.forecast();
    if (f == null) {
      return null;
    }
    ForecastStatus status = new ForecastStatus();
    status.setBudget(warmup.originBudget());
    status.setMeasuredAt(timestamp(now));
    status.setMessage(f.describe());
    if (observed.warmJob() != null && observed.warmJob().rate() != null) {
      status.setPreloadRate(round(observed.warmJob().rate()));
    }
    if (!f.known()) {
      return status;
    }
    status.setOriginRate(round(f.steady()));
    status.setLeavingRate(round(f.leaving()));
    status.setPeak(round(f.peak()));
    status.setFirstSeconds(round(f.firstSeconds()));
    status.setTail(round(f.tail()));
    status.setWarmAfterSeconds(f.warmAfter().toSeconds());
    status.setExtraReads(Math.round(f.extraReads()));
    status.setReleasedShare(Math.round(f.releasedShare() * 1000) / 10.0);
    status.setDominantIds(f.dominant().stream()
        .map(h -> new HotIdStatus(h.id(), round(h.rate()))).collect(Collectors.toList()));
    return status;
  }

  /**
   * {@code Warmed} as {@code decision} implies it, naming the canary pod hash it speaks about; the
   * recorded one when it is kept, which it is only while the Rollout still runs the pod hash the
   * recorded gate status names (the canary it was about, now stable), never for another revision.
   */
  private static ConditionValue warmed(GateObservation seen, Decision decision) {
    RolloutView view = seen.view();
    String pending = pendingRevision(seen.rollout());
    if (pending != null
        && !(decision instanceof Decision.Release || decision instanceof Decision.Abort)) {
      return new ConditionValue(Condition.UNKNOWN, GateReasons.REVISION_PENDING, pending);
    }
    String reason = decision.reason();
    String message = decision.message();
    String revision = view.currentPodHash() == null ? "" : "canary " + view.currentPodHash()
        + ": ";
    if (decision instanceof Decision.Release release
        && release.phase() != GatePhase.TimedOut) {
      return new ConditionValue(Condition.TRUE, reason, revision + message);
    }
    if (GateReasons.TIMED_OUT.equals(reason) || GateReasons.WARMING.equals(reason)
        || GateReasons.HOT_SET_EMPTY.equals(reason) || GateReasons.CANNOT_WARM.equals(reason)
        || GateReasons.FORECAST_UNKNOWN.equals(reason)) {
      return new ConditionValue(Condition.FALSE, reason, revision + message);
    }
    GateStatus before = seen.before();
    boolean kept = decision instanceof Decision.Pass
        && (RecordedGate.FINISHED.contains(decision.phase()) || decision.phase() == GatePhase.Idle)
        && before != null && view.currentPodHash() != null
        && view.currentPodHash().equals(before.getCanaryPodHash());
    ConditionValue recorded = current(seen.recorded(), Conditions.WARMED);
    if (kept && recorded != null) {
      return recorded;
    }
    return new ConditionValue(Condition.UNKNOWN, reason, message);
  }

  /**
   * Why the Rollout's canary may be about to change: its {@code metadata.generation} is newer than
   * the {@code status.observedGeneration} Argo Rollouts wrote (a number, as a string); null when
   * they agree or either is missing.
   */
  static String pendingRevision(GenericKubernetesResource rollout) {
    Long generation = rollout.getMetadata().getGeneration();
    Object status = rollout.getAdditionalProperties().get("status");
    Object observed = status instanceof Map<?, ?> map ? map.get("observedGeneration") : null;
    if (generation == null || observed == null) {
      return null;
    }
    long seen;
    try {
      seen = Long.parseLong(String.valueOf(observed));
    } catch (NumberFormatException e) {
      return null;
    }
    return seen >= generation ? null : "Rollout " + rollout.getMetadata().getNamespace() + "/"
        + rollout.getMetadata().getName() + " generation " + generation
        + " is not observed by Argo Rollouts yet (observed " + seen + "); Warmed will speak "
        + "about the canary it starts";
  }

  /** The recorded condition of {@code type}, or null. */
  private static ConditionValue current(CachePolicyStatus status, String type) {
    return Conditions.find(status, type)
        .map(c -> new ConditionValue(c.getStatus(), c.getReason(), c.getMessage()))
        .orElse(null);
  }

  private static void copy(GateStatus from, GateStatus to) {
    to.setCanaryPodHash(from.getCanaryPodHash());
    to.setStableSchemaHash(from.getStableSchemaHash());
    to.setCanarySchemaHash(from.getCanarySchemaHash());
    to.setCoverage(from.getCoverage());
    to.setTarget(from.getTarget());
    to.setStartedAt(from.getStartedAt());
    to.setReleasedAt(from.getReleasedAt());
    to.setReleasedCoverage(from.getReleasedCoverage());
  }

  /** To one decimal. */
  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }

  private static String timestamp(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
  }
}
