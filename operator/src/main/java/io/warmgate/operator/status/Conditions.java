package io.warmgate.operator.status;

import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Owns every status condition of a CachePolicy: sets type, status, reason, message and
 * observedGeneration, and moves {@code lastTransitionTime} only when the status really changes.
 *
 * <p>Not thread-safe per status object; a reconciler works on its own copy.
 */
public final class Conditions {

  public static final String READY = "Ready";
  public static final String L2_REACHABLE = "L2Reachable";
  /** Reserved for the rollout gate: the canary's namespace met the warm-up criteria. */
  public static final String WARMED = "Warmed";
  /** Reserved for the rollout gate: the gate currently holds the rollout. */
  public static final String ROLLOUT_HELD = "RolloutHeld";
  /**
   * Rollout targets only: True when an older CachePolicy targets the same Rollout; this policy's
   * gate then does not act.
   */
  public static final String CONFLICT = "Conflict";
  /**
   * Policies with {@code spec.changeStream} only: True when a pod reads the change stream and keeps
   * up with it; absent without the section.
   */
  public static final String CHANGES_FOLLOWED = "ChangesFollowed";

  private final Clock clock;

  public Conditions(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A condition's change: {@code previous} is null when the condition is new. */
  public record Transition(Condition previous, Condition current) {

    /** Whether status went from one value to another (or appeared), not just reason or message. */
    public boolean statusChanged() {
      return previous == null || !Objects.equals(previous.getStatus(), current.getStatus());
    }
  }

  /**
   * Sets condition {@code type} in {@code status}, keeping its position among the others.
   *
   * @return the transition when status or reason changed; empty when only the message or
   *     generation changed, or nothing did
   */
  public Optional<Transition> set(CachePolicyStatus status, long generation, String type,
      boolean value, String reason, String message) {
    return set(status, generation, type, value ? Condition.TRUE : Condition.FALSE, reason, message);
  }

  /** Like {@link #set(CachePolicyStatus, long, String, boolean, String, String)} for any status. */
  public Optional<Transition> set(CachePolicyStatus status, long generation, String type,
      String conditionStatus, String reason, String message) {
    if (status.getConditions() == null) {
      status.setConditions(new ArrayList<>());
    }
    List<Condition> conditions = status.getConditions();
    Condition previous = find(status, type).map(Condition::new).orElse(null);

    Condition current = previous == null ? new Condition() : find(status, type).orElseThrow();
    current.setType(type);
    current.setReason(reason);
    current.setMessage(message);
    current.setObservedGeneration(generation);
    if (previous == null || !conditionStatus.equals(previous.getStatus())
        || previous.getLastTransitionTime() == null) {
      current.setLastTransitionTime(now());
    }
    current.setStatus(conditionStatus);
    if (previous == null) {
      conditions.add(current);
    }
    boolean transitioned = previous == null
        || !Objects.equals(previous.getStatus(), current.getStatus())
        || !Objects.equals(previous.getReason(), current.getReason());
    return transitioned ? Optional.of(new Transition(previous, new Condition(current)))
        : Optional.empty();
  }

  /** The condition of this type, if present. */
  public static Optional<Condition> find(CachePolicyStatus status, String type) {
    if (status == null || status.getConditions() == null) {
      return Optional.empty();
    }
    return status.getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** Removes the condition of this type; returns whether there was one. */
  public static boolean remove(CachePolicyStatus status, String type) {
    return status != null && status.getConditions() != null
        && status.getConditions().removeIf(c -> type.equals(c.getType()));
  }

  /** Whether the condition of this type is present with status True. */
  public static boolean isTrue(CachePolicyStatus status, String type) {
    return find(status, type).map(c -> Condition.TRUE.equals(c.getStatus())).orElse(false);
  }

  /** RFC 3339 UTC timestamp at second precision, as Kubernetes writes metav1.Time. */
  public String now() {
    return DateTimeFormatter.ISO_INSTANT.format(Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
  }
}
