package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * How the agent's configuration reaches the pods labelled
 * {@code warmgate.io/cache-policy=<policy name>}.
 */
public class InjectionSpec {

  @Default("true")
  @JsonPropertyDescription("Whether the webhook adds the WARMGATE_* environment variables to the "
      + "labelled pods. Disable when the pods are configured by other means. Defaults to true.")
  private Boolean enabled = Boolean.TRUE;

  @Size(max = 32)
  @JsonPropertyDescription("Names of the containers to configure; empty means every container of "
      + "the pod (init containers excluded).")
  private List<@Size(max = 63) @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") String> containers =
      new ArrayList<>();

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getContainers() {
    return containers;
  }

  public void setContainers(List<String> containers) {
    this.containers = containers;
  }
}
