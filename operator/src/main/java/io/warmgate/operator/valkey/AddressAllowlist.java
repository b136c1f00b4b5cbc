package io.warmgate.operator.valkey;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Valkey addresses the operator may connect to, as {@code host[:port]} patterns: a policy
 * whose {@code spec.valkey.addresses} names anything else is refused before any connection, so a
 * policy cannot make the operator probe arbitrary services.
 *
 * <p>In a host pattern {@code *} stands for one or more characters of a host name (letters,
 * digits, {@code -} and {@code .}), so {@code *.svc} matches {@code valkey.team-a.svc}; any other
 * character stands for itself, case-insensitively. The port is a number or {@code *}; a pattern
 * without one allows any port. The default, {@link #IN_CLUSTER}, allows the cluster's Service
 * names only. Matching is on the address as written, before name resolution: a Service of type
 * {@code ExternalName} under {@code .svc} still reaches where it points, so who may create those
 * is the cluster's own decision. Immutable and thread-safe.
 */
public final class AddressAllowlist {

  /** Service names of the default cluster domain: {@code <service>.<namespace>.svc[...]}. */
  public static final String IN_CLUSTER = "*.svc,*.svc.cluster.local";

  private static final Pattern HOST_PATTERN = Pattern.compile("[a-z0-9*.\\-]+|\\[[0-9a-f:.*]+]");

  private final List<String> patterns;
  private final List<Pattern> hosts;
  private final List<String> ports;

  private AddressAllowlist(List<String> patterns, List<Pattern> hosts, List<String> ports) {
    this.patterns = List.copyOf(patterns);
    this.hosts = List.copyOf(hosts);
    this.ports = List.copyOf(ports);
  }

  /**
   * Parses comma-separated {@code host[:port]} patterns.
   *
   * @param setting the value of {@code WARMGATE_VALKEY_ALLOWED_ADDRESSES}
   * @throws IllegalArgumentException naming the pattern that is not {@code host[:port]}
   */
  public static AddressAllowlist parse(String setting) {
    List<String> patterns = new ArrayList<>();
    List<Pattern> hosts = new ArrayList<>();
    List<String> ports = new ArrayList<>();
    for (String raw : Arrays.stream(setting.split(",")).map(String::trim)
        .filter(s -> !s.isEmpty()).toList()) {
      String pattern = raw.toLowerCase(Locale.ROOT);
      int colon = pattern.lastIndexOf(':');
      boolean bracketed = pattern.startsWith("[");
      String host = pattern;
      String port = "*";
      if (colon > 0 && (!bracketed || pattern.lastIndexOf(']') < colon)) {
        host = pattern.substring(0, colon);
        port = pattern.substring(colon + 1);
      }
      if (!HOST_PATTERN.matcher(host).matches()
          || !(port.equals("*") || port.matches("[0-9]{1,5}"))) {
        throw new IllegalArgumentException("WARMGATE_VALKEY_ALLOWED_ADDRESSES: '" + raw + "' is "
            + "not a host[:port] pattern; use e.g. *.svc, *.svc.cluster.local:6379 or "
            + "valkey.cache.svc:6379 (* stands for any part of a host name, or any port)");
      }
      patterns.add(raw);
      hosts.add(Pattern.compile(Arrays.stream(host.split("\\*", -1)).map(Pattern::quote)
          .reduce((a, b) -> a + "[a-z0-9.\\-]+" + b).orElse("")));
      ports.add(port);
    }
    return new AddressAllowlist(patterns, hosts, ports);
  }

  /** Whether {@code address} ({@code host:port}) matches one of the patterns. */
  public boolean allows(String address) {
    if (address == null) {
      return false;
    }
    String normal = address.trim().toLowerCase(Locale.ROOT);
    int colon = normal.lastIndexOf(':');
    if (colon <= 0) {
      return false;
    }
    String host = normal.substring(0, colon);
    String port = normal.substring(colon + 1);
    for (int i = 0; i < hosts.size(); i++) {
      if (hosts.get(i).matcher(host).matches()
          && (ports.get(i).equals("*") || ports.get(i).equals(port))) {
        return true;
      }
    }
    return false;
  }

  /** The patterns as configured, comma-separated; empty when none is allowed. */
  public String describe() {
    return String.join(",", patterns);
  }
}
