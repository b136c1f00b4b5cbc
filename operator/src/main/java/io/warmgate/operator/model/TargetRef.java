package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The workload, in the policy's namespace, whose pods use the cache. */
@ValidationRule(value = "!has(self.apiVersion) "
    + "|| (self.kind == 'Rollout' && self.apiVersion == 'argoproj.io/v1alpha1') "
    + "|| ((self.kind == 'Deployment' || self.kind == 'StatefulSet') "
    + "&& self.apiVersion == 'apps/v1')",
    message = "targetRef.apiVersion must be argoproj.io/v1alpha1 for kind Rollout and apps/v1 "
        + "for kinds Deployment and StatefulSet",
    fieldPath = ".apiVersion")
public class TargetRef {

  @Size(max = 253)
  @JsonPropertyDescription("API version of the workload: argoproj.io/v1alpha1 for Rollout, "
      + "apps/v1 for Deployment and StatefulSet; optional, as kind implies it.")
  private String apiVersion;

  @Required
  @JsonPropertyDescription("Kind of the workload: Rollout (Argo Rollouts, argoproj.io/v1alpha1; "
      + "enables the canary gate), Deployment or StatefulSet (apps/v1; their pods wait on the "
      + "warmgate.io/warm readiness gate).")
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

  public String getApiVersion() {
    return apiVersion;
  }

  public void setApiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
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
