package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A key of a Secret in the CachePolicy's namespace. */
public class SecretKeyRef {

  @Required
  @Size(min = 1, max = 253)
  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @JsonPropertyDescription("Name of the Secret in the CachePolicy's namespace.")
  private String name;

  @Default("password")
  @Size(min = 1, max = 253)
  @Pattern("^[-._a-zA-Z0-9]+$")
  @JsonPropertyDescription("Key in the Secret's data that holds the value. Defaults to password.")
  private String key = "password";

  public SecretKeyRef() {}

  public SecretKeyRef(String name, String key) {
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
