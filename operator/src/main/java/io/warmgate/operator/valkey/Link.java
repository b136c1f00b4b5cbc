package io.warmgate.operator.valkey;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's client of one {@link ValkeyEndpoint}: checks it for {@code L2Reachable} and hands
 * the gate its commands. One subclass per mode; {@link ValkeyClients} shares one per endpoint.
 */
abstract sealed class Link permits StandaloneLink, ClusterLink {

  private static final Logger log = LoggerFactory.getLogger(Link.class);

  final ValkeyEndpoint endpoint;
  final Duration timeout;
  /** Policies (namespace/name) using this link; guarded by the owning {@link ValkeyClients}. */
  final Set<String> users = new HashSet<>();
  /** The outcome of the last probe, by a policy's pass or the watcher; null before the first. */
  volatile ProbeResult lastProbe;
  /** The watcher's timer of this link, or null when not watched; guarded by the owner. */
  ScheduledFuture<?> watching;
  /** Connects to single nodes: the server, or a cluster's seeds and nodes when checking them. */
  final RedisClient single;

  Link(ValkeyEndpoint endpoint, Duration timeout, ClientResources resources) {
    this.endpoint = endpoint;
    this.timeout = timeout;
    this.single = RedisClient.create(resources);
    // Its connections are short-lived checks, or kept ones reopened on demand.
    single.setOptions(options(ClientOptions.builder()).autoReconnect(false).build());
  }

  /** Checks the deployment; never throws, a failure is a result naming the address and the fix. */
  abstract ProbeResult probe();

  /**
   * The commands to the deployment, opening the connection when none is open.
   *
   * @throws io.lettuce.core.RedisException if it cannot be opened
   */
  abstract ValkeyCommands commands();

  /** Closes the connections and clients; quick, does not wait for the server. */
  void close() {
    single.shutdownAsync(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Sets what both modes share: connects and commands bounded by the probe timeout, commands
   * refused at once while disconnected, TLS with the endpoint's CA.
   */
  final <B extends ClientOptions.Builder> B options(B builder) {
    builder.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
        .timeoutOptions(TimeoutOptions.enabled(timeout));
    if (endpoint.tls()) {
      SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
      if (endpoint.caPem() != null) {
        byte[] pem = endpoint.caPem().getBytes(StandardCharsets.US_ASCII);
        ssl.trustManager(() -> new ByteArrayInputStream(pem));
      }
      builder.sslOptions(ssl.build());
    }
    return builder;
  }

  /** The URI of {@code address} with the endpoint's TLS and, if asked, its credentials. */
  final RedisURI uri(String address, boolean withCredentials) {
    int colon = address.lastIndexOf(':');
    RedisURI.Builder uri = RedisURI.builder()
        .withHost(address.substring(0, colon))
        .withPort(Integer.parseInt(address.substring(colon + 1)))
        .withSsl(endpoint.tls())
        .withTimeout(timeout)
        .withClientName("warmgate-operator");
    if (endpoint.tls()) {
      uri.withVerifyPeer(endpoint.verifyHost() ? SslVerifyMode.FULL : SslVerifyMode.CA);
    }
    char[] password = endpoint.password();
    if (withCredentials && password != null) {
      if (endpoint.username() != null) {
        uri.withAuthentication(endpoint.username(), password);
      } else {
        uri.withPassword(password);
      }
    }
    return uri.build();
  }

  /** What went wrong reaching {@code address}, sharpened by a look at the wire. */
  final ProbeResult failed(String address, Throwable failure) {
    log.debug("Valkey check of {} failed", address, failure);
    ProbeResult seen = ValkeyFailures.classify(address, failure, endpoint.password() != null);
    return WireCheck.explain(address, endpoint.tls(), timeout, seen);
  }

  /**
   * When the endpoint has a password but {@code address} answers PING without one: what to fix
   * (the server is not protected as the policy assumes, and a server that rejects a password it
   * does not expect refuses agents that send one). Null otherwise.
   */
  final String unprotected(String address) {
    if (endpoint.password() == null) {
      return null;
    }
    try (StatefulRedisConnection<String, String> anonymous =
        single.connect(uri(address, false))) {
      if (!"PONG".equals(anonymous.sync().ping())) {
        return null;
      }
    } catch (RuntimeException e) {
      log.debug("Anonymous PING of {} failed, so it requires a password", address, e);
      return null;
    }
    return "Valkey at " + address + " answers without a password, but "
        + "spec.valkey.passwordSecretKeyRef gives one: the server is not protected as this "
        + "policy assumes; set a password on the server (requirepass or an ACL user), or "
        + "remove passwordSecretKeyRef (and username) from the policy";
  }

  /** Whether {@code address} runs with cluster support ({@code INFO cluster}). */
  static boolean clusterEnabled(StatefulRedisConnection<String, String> connection) {
    return connection.sync().info("cluster").contains("cluster_enabled:1");
  }
}
