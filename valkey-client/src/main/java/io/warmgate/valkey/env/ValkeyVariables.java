package io.warmgate.valkey.env;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.contract.AgentVariables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code WARMGATE_VALKEY_*} variables, read the same way by every warmgate component that
 * reaches Valkey (the cache agent, the stream gateway): mode, addresses, credentials, TLS and its
 * CA, where lookups read. Immutable; {@link #toString()} never shows the password.
 *
 * <p>A malformed value or a combination that cannot work is refused with an
 * {@link IllegalArgumentException} naming the variable, its value and the fix.
 */
public final class ValkeyVariables {

  /**
   * {@code host:port} of the Valkey/Redis server, or comma-separated seed nodes of a cluster (at
   * most {@value #MAX_CLUSTER_SEEDS}).
   */
  public static final String ADDRESSES = AgentVariables.VALKEY_ADDRESSES;
  /** {@code standalone} (default: one server) or {@code cluster} (a Valkey cluster's seed nodes). */
  public static final String MODE = AgentVariables.VALKEY_MODE;
  /** ACL user name, optional. */
  public static final String USERNAME = AgentVariables.VALKEY_USERNAME;
  /** Password, optional. */
  public static final String PASSWORD = AgentVariables.VALKEY_PASSWORD;
  /** {@code true} to connect with TLS; default {@code false}. */
  public static final String TLS = AgentVariables.VALKEY_TLS;
  /** Path of a PEM file with the CA certificates to trust instead of the JDK's; needs TLS. */
  public static final String TLS_CA_FILE = AgentVariables.VALKEY_TLS_CA_FILE;
  /** The same CA certificates as PEM text; an alternative to {@value #TLS_CA_FILE}, not both. */
  public static final String TLS_CA = AgentVariables.VALKEY_TLS_CA;
  /** {@code full} (default: signed by a trusted CA and naming the host) or {@code ca} (any name). */
  public static final String TLS_VERIFY = AgentVariables.VALKEY_TLS_VERIFY;
  /** {@code primary} (default) or {@code replica-preferred} (cluster only). */
  public static final String READ_FROM = AgentVariables.VALKEY_READ_FROM;

  /** Most seed nodes {@value #ADDRESSES} takes in cluster mode, as the CRD. */
  public static final int MAX_CLUSTER_SEEDS = 16;

  private final ValkeyEndpoint.Mode mode;
  private final List<String> addresses;
  private final String username;
  private final String password;
  private final boolean tls;
  private final boolean tlsVerifyHost;
  private final ValkeyEndpoint.ReadFrom readFrom;
  private final ValkeyEndpoint endpoint;

  private ValkeyVariables(Map<String, String> env) {
    String modeText = text(env, MODE);
    mode = modeText == null ? ValkeyEndpoint.Mode.STANDALONE
        : switch (modeText.toLowerCase(Locale.ROOT)) {
          case "standalone" -> ValkeyEndpoint.Mode.STANDALONE;
          case "cluster" -> ValkeyEndpoint.Mode.CLUSTER;
          default -> throw EnvValues.invalid(MODE, modeText,
              "standalone (one server) or cluster (a Valkey cluster's seed nodes)");
        };
    String addressText = text(env, ADDRESSES);
    addresses = addressText == null ? List.of()
        : Arrays.stream(addressText.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    for (String address : addresses) {
      if (!address.matches("[^:\\s]+:\\d{1,5}") && !address.matches("\\[[0-9a-fA-F:.]+]:\\d{1,5}")) {
        throw EnvValues.invalid(ADDRESSES, addressText, "comma-separated host:port pairs");
      }
    }
    checkAddressCount(addressText);
    username = text(env, USERNAME);
    password = text(env, PASSWORD);
    String tlsText = text(env, TLS);
    tls = tlsText != null && EnvValues.bool(TLS, tlsText);
    String verify = text(env, TLS_VERIFY);
    tlsVerifyHost = verify == null || switch (verify.toLowerCase(Locale.ROOT)) {
      case "full" -> true;
      case "ca" -> false;
      default -> throw EnvValues.invalid(TLS_VERIFY, verify, "full (the certificate must "
          + "name the host connected to) or ca (any name, signed by a trusted CA)");
    };
    String readFromText = text(env, READ_FROM);
    readFrom = readFromText == null ? ValkeyEndpoint.ReadFrom.PRIMARY
        : Arrays.stream(ValkeyEndpoint.ReadFrom.values())
            .filter(r -> r.configName().equalsIgnoreCase(readFromText)).findFirst()
            .orElseThrow(() -> EnvValues.invalid(READ_FROM, readFromText,
                "primary or replica-preferred"));
    endpoint = addresses.isEmpty() ? null : endpoint(env);
  }

  /**
   * Reads the variables from {@code env}, a stand-in for the process environment. Unset or blank
   * variables take their defaults; without {@value #ADDRESSES} there is no {@link #endpoint()}.
   *
   * @throws NullPointerException if {@code env} is null
   * @throws IllegalArgumentException naming the variable, the value and the fix
   */
  public static ValkeyVariables from(Map<String, String> env) {
    return new ValkeyVariables(Objects.requireNonNull(env, "env"));
  }

  /**
   * Builds the endpoint from the variables, each combination error naming the variables and the
   * fix.
   */
  private ValkeyEndpoint endpoint(Map<String, String> env) {
    String caFile = text(env, TLS_CA_FILE);
    String caPem = text(env, TLS_CA);
    if (caFile != null && caPem != null) {
      throw new IllegalArgumentException(TLS_CA_FILE + " and " + TLS_CA
          + " are both set: set only one (the CA as a file path, or as PEM text)");
    }
    String caVariable = caFile != null ? TLS_CA_FILE : TLS_CA;
    if ((caFile != null || caPem != null) && !tls) {
      throw new IllegalArgumentException(caVariable + " is set but " + TLS + " is not "
          + "true: set " + TLS + "=true to connect with TLS, or unset " + caVariable);
    }
    if (!tlsVerifyHost && !tls) {
      throw new IllegalArgumentException(TLS_VERIFY + "=ca applies to TLS connections, but "
          + TLS + " is not true: set " + TLS + "=true, or unset " + TLS_VERIFY);
    }
    if (readFrom != ValkeyEndpoint.ReadFrom.PRIMARY && mode != ValkeyEndpoint.Mode.CLUSTER) {
      throw new IllegalArgumentException(READ_FROM + "=" + readFrom.configName()
          + " needs " + MODE + "=cluster: a standalone server has no replicas the agent "
          + "can find; unset " + READ_FROM + " or point the agent at a cluster");
    }
    List<RedisURI> uris = new ArrayList<>(addresses.size());
    for (String address : addresses) {
      int colon = address.lastIndexOf(':');
      RedisURI.Builder uri = RedisURI.builder()
          .withHost(address.substring(0, colon).replace("[", "").replace("]", ""))
          .withPort(Integer.parseInt(address.substring(colon + 1)))
          .withSsl(tls);
      if (tls) {
        uri.withVerifyPeer(tlsVerifyHost ? SslVerifyMode.FULL : SslVerifyMode.CA);
      }
      if (password != null) {
        if (username != null) {
          uri.withAuthentication(username, password);
        } else {
          uri.withPassword(password.toCharArray());
        }
      }
      uris.add(uri.build());
    }
    ValkeyEndpoint built = mode == ValkeyEndpoint.Mode.CLUSTER
        ? ValkeyEndpoint.cluster(uris) : ValkeyEndpoint.standalone(uris.get(0));
    built = built.withReadFrom(readFrom);
    try {
      if (caFile != null) {
        built = built.withTrustedCertificates(Path.of(caFile));
      } else if (caPem != null) {
        built = built.withTrustedCertificates(caPem);
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(caVariable + " is invalid: " + e.getMessage(), e);
    }
    return built;
  }

  /** One address in standalone mode; 1 to 16 distinct seeds in cluster mode. */
  private void checkAddressCount(String addressText) {
    if (mode == ValkeyEndpoint.Mode.STANDALONE && addresses.size() > 1) {
      throw new IllegalArgumentException(ADDRESSES + "='" + addressText + "' is invalid: "
          + "expected exactly one host:port in standalone mode; if these are a Valkey cluster's "
          + "seed nodes, set " + MODE + "=cluster");
    }
    if (addresses.size() > MAX_CLUSTER_SEEDS) {
      throw EnvValues.invalid(ADDRESSES, addressText, "at most " + MAX_CLUSTER_SEEDS
          + " seed nodes (a few of the cluster's nodes are enough to find the others)");
    }
    if (new HashSet<>(addresses).size() < addresses.size()) {
      throw EnvValues.invalid(ADDRESSES, addressText, "each host:port listed once");
    }
  }

  /** {@value #MODE}. */
  public ValkeyEndpoint.Mode mode() { return mode; }
  /** {@value #ADDRESSES} as a list; empty when unset. */
  public List<String> addresses() { return addresses; }
  /** {@value #USERNAME}, or empty. */
  public Optional<String> username() { return Optional.ofNullable(username); }
  /** {@value #PASSWORD}, or empty. */
  public Optional<String> password() { return Optional.ofNullable(password); }
  /** {@value #TLS}. */
  public boolean tls() { return tls; }
  /** {@value #TLS_VERIFY}: true for {@code full}, false for {@code ca}. */
  public boolean tlsVerifyHost() { return tlsVerifyHost; }
  /** {@value #READ_FROM}. */
  public ValkeyEndpoint.ReadFrom readFrom() { return readFrom; }
  /** Where and how to reach Valkey, from every variable; empty when {@value #ADDRESSES} is unset. */
  public Optional<ValkeyEndpoint> endpoint() { return Optional.ofNullable(endpoint); }

  @Override
  public String toString() {
    return "valkeyMode=" + mode + ", valkeyAddresses=" + addresses
        + ", valkeyUsername=" + username
        + ", valkeyPassword=" + (password == null ? "<unset>" : "<redacted>")
        + ", valkeyTls=" + tls + ", valkeyTlsVerifyHost=" + tlsVerifyHost
        + ", valkeyReadFrom=" + readFrom.configName();
  }

  private static String text(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
