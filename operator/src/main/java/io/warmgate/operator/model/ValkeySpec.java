package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/** The Valkey (or Redis) server the pods share as their L2 cache. */
@ValidationRule(value = "!has(self.username) || has(self.passwordSecretKeyRef)",
    message = "valkey.username requires valkey.passwordSecretKeyRef; add the Secret that holds "
        + "the user's password", fieldPath = ".username")
@ValidationRule(value = "self.addresses.all(a, self.addresses.filter(b, b == a).size() == 1)",
    message = "valkey.addresses lists an address more than once; list each host:port once",
    fieldPath = ".addresses")
public class ValkeySpec {

  @Required
  @Size(min = 1, max = 16)
  @JsonPropertyDescription("Addresses of the Valkey server as host:port, such as valkey:6379; "
      + "several for a Valkey cluster's seed nodes. Every address must answer for "
      + "L2Reachable=True. Injected comma-separated as WARMGATE_VALKEY_ADDRESSES.")
  private List<@Size(max = 261) @Pattern("^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?:[0-9]{1,5}$")
      String> addresses = new ArrayList<>();

  @Default("false")
  @JsonPropertyDescription("Whether to connect with TLS. Defaults to false. Injected as "
      + "WARMGATE_VALKEY_TLS.")
  private Boolean tls = Boolean.FALSE;

  @Size(min = 1, max = 128)
  @Pattern("^[^\\s]+$")
  @JsonPropertyDescription("ACL user name; unset uses the default user. Requires "
      + "passwordSecretKeyRef. Injected as WARMGATE_VALKEY_USERNAME.")
  private String username;

  @JsonPropertyDescription("Secret key holding the Valkey password; unset connects without AUTH. "
      + "Injected as WARMGATE_VALKEY_PASSWORD through a secretKeyRef, never copied.")
  private SecretKeyRef passwordSecretKeyRef;

  public List<String> getAddresses() {
    return addresses;
  }

  public void setAddresses(List<String> addresses) {
    this.addresses = addresses;
  }

  public Boolean getTls() {
    return tls;
  }

  public void setTls(Boolean tls) {
    this.tls = tls;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public SecretKeyRef getPasswordSecretKeyRef() {
    return passwordSecretKeyRef;
  }

  public void setPasswordSecretKeyRef(SecretKeyRef passwordSecretKeyRef) {
    this.passwordSecretKeyRef = passwordSecretKeyRef;
  }
}
