package io.warmgate.operator.valkey;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where and how to reach one Valkey deployment. Two policies with equal endpoints share a client.
 *
 * @param addresses {@code host:port} pairs, in the order the policy lists them: the server, or a
 *     cluster's seed nodes
 * @param cluster whether the addresses are seed nodes of a Valkey cluster
 * @param tls whether to use TLS
 * @param verifyHost with TLS, whether a certificate must name the host connected to (else only
 *     its CA is checked)
 * @param caPem PEM certificates of the CA to trust instead of the JDK's, or null
 * @param username ACL user, or null for the default user
 * @param password password, or null to connect without AUTH; never printed
 */
public record ValkeyEndpoint(List<String> addresses, boolean cluster, boolean tls,
    boolean verifyHost, String caPem, String username, char[] password) {

  public ValkeyEndpoint {
    addresses = List.copyOf(addresses);
    password = password == null ? null : password.clone();
  }

  @Override
  public char[] password() {
    return password == null ? null : password.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ValkeyEndpoint e && cluster == e.cluster && tls == e.tls
        && verifyHost == e.verifyHost && addresses.equals(e.addresses)
        && Objects.equals(caPem, e.caPem) && Objects.equals(username, e.username)
        && Arrays.equals(password, e.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(addresses, cluster, tls, verifyHost, caPem, username,
        Arrays.hashCode(password));
  }

  @Override
  public String toString() {
    return (cluster ? "cluster " : "") + (tls ? "rediss://" : "redis://")
        + String.join(",", addresses)
        + (tls && !verifyHost ? " (CA checked, not names)" : "")
        + (caPem == null ? "" : " trusting a given CA")
        + (username == null ? "" : " as " + username)
        + (password == null ? "" : " with password");
  }
}
