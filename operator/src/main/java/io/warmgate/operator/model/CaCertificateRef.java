package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A key of a Secret in the CachePolicy's namespace holding PEM CA certificates. */
public class CaCertificateRef {

  @Required
  @Size(min = 1, max = 253)
  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @JsonPropertyDescription("Name of the Secret in the CachePolicy's namespace.")
  private String name;

  @Default("ca.crt")
  @Size(min = 1, max = 253)
  @Pattern("^[-._a-zA-Z0-9]+$")
  @JsonPropertyDescription("Key in the Secret's data holding the CA certificates as PEM "
      + "(BEGIN CERTIFICATE blocks). Defaults to ca.crt, where cert-manager keeps it.")
  private String key = "ca.crt";

  public CaCertificateRef() {}

  public CaCertificateRef(String name, String key) {
    this.name = name;
    this.key = key;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }
}
