package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** The workload, in the policy's namespace, whose pods use the cache. */
public class TargetRef {

  @Required
  @JsonPropertyDescription("Kind of the workload: Rollout (Argo Rollouts, argoproj.io/v1alpha1; "
      + "enables the canary gate) or Deployment (apps/v1; injection only).")
  private TargetKind kind;

  @Required
  @Size(min = 1, max = 253)
  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @JsonPropertyDescription("Name of the workload in the CachePolicy's namespace.")
  private String name;

  public TargetRef() {}

  public TargetRef(TargetKind kind, String name) {
    this.kind = kind;
    this.name = name;
  }

  public TargetKind getKind() {
    return kind;
  }

  public void setKind(TargetKind kind) {
    this.kind = kind;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }
}
