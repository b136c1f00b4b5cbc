package io.warmgate.operator.readiness;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.warmgate.operator.gate.Decision;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.revision.NewPods;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What one pod's {@value PodInjector#READINESS_GATE} condition should say, from the pod and the
 * verdict on its workload's new pods. Pure.
 *
 * <p>Rules, in order:
 * <ul>
 *   <li>A pod without the readiness gate (created before its policy, or with injection off) or
 *       being deleted is left alone: nothing waits on it.</li>
 *   <li>True stays True: a pod once let in is never taken out of its Service again, whatever a
 *       later pass sees (a container restart keeps pod conditions; a new pod is judged anew).</li>
 *   <li>A pod of the replaced revision is True: it serves from the key space already warm.</li>
 *   <li>A pod of the newest revision is True when no release is in progress (a scale-out, the
 *       first revision, a finished rollout) or when the verdict releases the new pods (warm,
 *       schema unchanged, or {@code onTimeout: Promote}); else False with the verdict's reason.</li>
 *   <li>A pod of any other revision is left alone until a pass that read the revisions after it
 *       was created: it may be newer than what the pass saw.</li>
 * </ul>
 */
final class PodWarmth {

  /** The condition to write. */
  record Write(String status, String reason, String message) {}

  static final String STABLE_REVISION = "StableRevision";
  static final String NO_RELEASE = "NoReleaseInProgress";

  private PodWarmth() {}

  /** The condition {@code pod} should carry now; empty when it should not be written. */
  static Optional<Write> of(Pod pod, WarmVerdict verdict) {
    Objects.requireNonNull(verdict, "verdict");
    if (!gated(pod) || pod.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    PodCondition current = condition(pod);
    if (current != null && "True".equals(current.getStatus())) {
      return Optional.empty();
    }
    Write wanted = wanted(pod, verdict);
    if (wanted == null || current != null && wanted.status().equals(current.getStatus())
        && wanted.reason().equals(current.getReason())) {
      return Optional.empty();
    }
    return Optional.of(wanted);
  }

  /** Whether {@code pod} waits on {@value PodInjector#READINESS_GATE}. */
  static boolean gated(Pod pod) {
    return pod.getSpec() != null && pod.getSpec().getReadinessGates() != null
        && pod.getSpec().getReadinessGates().stream()
            .anyMatch(g -> PodInjector.READINESS_GATE.equals(g.getConditionType()));
  }

  /** Whether {@code pod} waits on the condition and it is not True yet. */
  static boolean waiting(Pod pod) {
    PodCondition current = condition(pod);
    return gated(pod) && pod.getMetadata().getDeletionTimestamp() == null
        && (current == null || !"True".equals(current.getStatus()));
  }

  private static Write wanted(Pod pod, WarmVerdict verdict) {
    NewPods pods = verdict.pods();
    Map<String, String> labels = pod.getMetadata().getLabels();
    String hash = labels == null ? null : labels.get(pods.podHashLabel());
    if (hash == null) {
      return null;
    }
    if (hash.equals(pods.stablePodHash())) {
      return new Write("True", STABLE_REVISION, "pods " + hash + " are the replaced revision of "
          + pods.workload() + "; their key space is warm");
    }
    if (!hash.equals(pods.newPodHash())) {
      return null;
    }
    if (!pods.inProgress()) {
      return new Write("True", NO_RELEASE, "no release of " + pods.workload() + " is in "
          + "progress (a scale-out or its first revision): pods " + hash + " share the key "
          + "space of the pods already serving");
    }
    Decision decision = verdict.decision();
    return new Write(verdict.warm() ? "True" : "False", decision.reason(),
        "new pods " + hash + ": " + decision.message());
  }

  private static PodCondition condition(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> PodInjector.READINESS_GATE.equals(c.getType())).findFirst().orElse(null);
  }
}
