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
@ValidationRule(value = "!has(self.mode) || self.mode == 'Cluster' || size(self.addresses) == 1",
    message = "valkey.addresses lists several addresses but valkey.mode is Standalone: set mode: "
        + "Cluster if they are seed nodes of a Valkey cluster, or list the one server",
    fieldPath = ".addresses")
@ValidationRule(value = "!has(self.readFrom) || self.readFrom == 'Primary' "
    + "|| (has(self.mode) && self.mode == 'Cluster')",
    message = "valkey.readFrom ReplicaPreferred needs mode: Cluster, as a standalone server has "
        + "no replicas the agents can find; remove readFrom or set mode: Cluster",
    fieldPath = ".readFrom")
@ValidationRule(value = "!has(self.tlsCaSecretRef) || (has(self.tls) && self.tls)",
    message = "valkey.tlsCaSecretRef needs tls: true, as the CA only checks TLS servers; set "
        + "tls: true or remove tlsCaSecretRef", fieldPath = ".tlsCaSecretRef")
@ValidationRule(value = "!has(self.tlsVerify) || self.tlsVerify == 'Full' "
    + "|| (has(self.tls) && self.tls)",
    message = "valkey.tlsVerify CA applies to TLS connections; set tls: true or remove tlsVerify",
    fieldPath = ".tlsVerify")
public class ValkeySpec {

  @Required
  @Size(min = 1, max = 16)
  @JsonPropertyDescription("Addresses as host:port, such as valkey.cache.svc:6379: the one "
      + "server in Standalone mode; in Cluster mode, seed nodes of the cluster (such as a "
      + "Memorystore discovery endpoint, or a few nodes), through which the others are found. "
      + "The operator connects only to addresses its allowlist admits (by default Service names "
      + "under .svc and .svc.cluster.local); others are reported AddressNotAllowed. Injected "
      + "comma-separated as WARMGATE_VALKEY_ADDRESSES.")
  private List<@Size(max = 261) @Pattern("^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?:[0-9]{1,5}$")
      String> addresses = new ArrayList<>();

  @Default("Standalone")
  @JsonPropertyDescription("Standalone (one server) or Cluster (a Valkey cluster: Memorystore for "
      + "Valkey, ElastiCache, a self-managed cluster). Defaults to Standalone. Injected as "
      + "WARMGATE_VALKEY_MODE.")
  private ValkeyMode mode = ValkeyMode.Standalone;

  @Default("Primary")
  @JsonPropertyDescription("Where the agents' lookups read values: Primary, or ReplicaPreferred "
      + "(Cluster only: a replica of the key's slot while one is up, which may answer with a "
      + "value a moment older or miss one just written). Defaults to Primary. Injected as "
      + "WARMGATE_VALKEY_READ_FROM.")
  private ValkeyReadFrom readFrom = ValkeyReadFrom.Primary;

  @Default("false")
  @JsonPropertyDescription("Whether to connect with TLS. Defaults to false. Injected as "
      + "WARMGATE_VALKEY_TLS.")
  private Boolean tls = Boolean.FALSE;

  @JsonPropertyDescription("Secret key holding the PEM certificates of the CA that signed the "
      + "servers' certificates, trusted instead of the default trust store (a private CA, such "
      + "as Memorystore's server CA). Requires tls. Injected as WARMGATE_VALKEY_TLS_CA through a "
      + "secretKeyRef.")
  private CaCertificateRef tlsCaSecretRef;

  @Default("Full")
  @JsonPropertyDescription("Full (the certificate must name the host or IP address connected "
      + "to) or CA (any name, signed by a trusted CA: for clusters whose nodes announce IP "
      + "addresses their certificates do not list). Defaults to Full; applies with tls. "
      + "Injected as WARMGATE_VALKEY_TLS_VERIFY.")
  private TlsVerify tlsVerify = TlsVerify.Full;

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

  public ValkeyMode getMode() {
    return mode;
  }

  public void setMode(ValkeyMode mode) {
    this.mode = mode;
  }

  public ValkeyReadFrom getReadFrom() {
    return readFrom;
  }

  public void setReadFrom(ValkeyReadFrom readFrom) {
    this.readFrom = readFrom;
  }

  public CaCertificateRef getTlsCaSecretRef() {
    return tlsCaSecretRef;
  }

  public void setTlsCaSecretRef(CaCertificateRef tlsCaSecretRef) {
    this.tlsCaSecretRef = tlsCaSecretRef;
  }

  public TlsVerify getTlsVerify() {
    return tlsVerify;
  }

  public void setTlsVerify(TlsVerify tlsVerify) {
    this.tlsVerify = tlsVerify;
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
