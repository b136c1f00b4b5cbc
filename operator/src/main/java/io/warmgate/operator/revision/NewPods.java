package io.warmgate.operator.revision;

import java.time.Instant;

/**
 * The new pods of a workload's rollout and the pods they replace, each named by the pod-template
 * hash their agents register under.
 *
 * @param namespace the workload's namespace
 * @param workload such as {@code Rollout shop/deals} or {@code Deployment shop/deals (Flagger
 *     canary of shop/deals-primary)}, for messages
 * @param newPodHash the new pods' hash, or null when none is known
 * @param stablePodHash the replaced pods' hash, or null when no older pods run
 * @param since when the new pods' ReplicaSet (a StatefulSet's: ControllerRevision) was created,
 *     or null when unknown: the start of {@code warmup.maxWait} for a gate that is not a pause
 *     step
 * @param podHashLabel the pod label carrying the hash ({@link #ROLLOUT_LABEL},
 *     {@link #DEPLOYMENT_LABEL} or {@link #STATEFULSET_LABEL})
 * @param flagger whether Flagger rolls them (the workload is a Flagger Canary's target)
 */
public record NewPods(String namespace, String workload, String newPodHash,
    String stablePodHash, Instant since, String podHashLabel, boolean flagger) {

  /** The label Argo Rollouts puts on a Rollout's pods. */
  public static final String ROLLOUT_LABEL = "rollouts-pod-template-hash";
  /** The label the Deployment controller puts on a Deployment's pods. */
  public static final String DEPLOYMENT_LABEL = "pod-template-hash";
  /**
   * The label the StatefulSet controller puts on a StatefulSet's pods: the name of their
   * ControllerRevision, as {@code status.currentRevision} and {@code status.updateRevision} say.
   */
  public static final String STATEFULSET_LABEL = "controller-revision-hash";

  /** Whether new pods differ from the pods they replace: both hashes known and unequal. */
  public boolean inProgress() {
    return newPodHash != null && stablePodHash != null && !newPodHash.equals(stablePodHash);
  }
}
