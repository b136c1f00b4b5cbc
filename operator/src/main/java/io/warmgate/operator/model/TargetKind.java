package io.warmgate.operator.model;

/** The kinds of workload a {@link CachePolicy} can target. */
public enum TargetKind {
  /** An Argo Rollouts {@code Rollout} ({@code argoproj.io/v1alpha1}): injection and canary gate. */
  Rollout,
  /**
   * An {@code apps/v1} {@code Deployment}: injection, and the {@code warmgate.io/warm} readiness
   * gate on its pods, which the operator sets once their key space is warm (Flagger may also ask
   * the decision endpoints); the operator patches nothing of the Deployment itself.
   */
  Deployment,
  /**
   * An {@code apps/v1} {@code StatefulSet}: injection, and the {@code warmgate.io/warm} readiness
   * gate on its pods, as for a Deployment; a StatefulSet's revisions are its
   * {@code controller-revision-hash}es.
   */
  StatefulSet;

  /**
   * Whether pods of this kind wait on the {@code warmgate.io/warm} readiness gate: the kinds
   * whose own controller paces the rollout by pod readiness (Deployment, StatefulSet).
   */
  public boolean readinessGated() {
    return this == Deployment || this == StatefulSet;
  }
}
