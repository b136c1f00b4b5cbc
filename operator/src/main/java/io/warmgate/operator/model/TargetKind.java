package io.warmgate.operator.model;

/** The kinds of workload a {@link CachePolicy} can target. */
public enum TargetKind {
  /** An Argo Rollouts {@code Rollout} ({@code argoproj.io/v1alpha1}): injection and canary gate. */
  Rollout,
  /**
   * An {@code apps/v1} {@code Deployment}: injection, and a gate that Flagger or another check
   * asks through the decision endpoints; the operator patches nothing of it.
   */
  Deployment
}
