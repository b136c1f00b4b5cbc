package io.warmgate.operator.valkey;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Where and how to reach one Valkey deployment. Two policies with equal endpoints share a client.
 *
 * @param addresses {@code host:port} pairs, in the order the policy lists them
 * @param tls whether to use TLS
 * @param username ACL user, or null for the default user
 * @param password password, or null to connect without AUTH; never printed
 */
public record ValkeyEndpoint(List<String> addresses, boolean tls, String username,
    char[] password) {

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
    return o instanceof ValkeyEndpoint e && tls == e.tls && addresses.equals(e.addresses)
        && Objects.equals(username, e.username) && Arrays.equals(password, e.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(addresses, tls, username, Arrays.hashCode(password));
  }

  @Override
  public String toString() {
    return (tls ? "rediss://" : "redis://") + String.join(",", addresses)
        + (username == null ? "" : " as " + username)
        + (password == null ? "" : " with password");
  }
}
