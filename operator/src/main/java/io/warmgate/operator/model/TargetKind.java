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
  Deployment
}
