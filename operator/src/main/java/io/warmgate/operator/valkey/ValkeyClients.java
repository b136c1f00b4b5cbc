package io.warmgate.operator.valkey;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.warmgate.operator.status.Reasons;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one Valkey client per {@link ValkeyEndpoint}, shared by every policy that uses it, and
 * closes it when the last such policy lets go.
 *
 * <p>Thread-safe. {@link #probe} blocks for at most the probe timeout per address, so a dead
 * endpoint slows only the policies that use it.
 */
public final class ValkeyClients implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ValkeyClients.class);

  private final Duration timeout;
  private final ClientResources resources;
  private final Map<ValkeyEndpoint, Shared> byEndpoint = new HashMap<>();
  private final Map<String, ValkeyEndpoint> byUser = new HashMap<>();

  /** @param timeout how long one connect or PING may take before the address counts as down */
  public ValkeyClients(Duration timeout) {
    this.timeout = timeout;
    this.resources = DefaultClientResources.builder().ioThreadPoolSize(2)
        .computationThreadPoolSize(2).build();
  }

  /**
   * Checks every address of {@code endpoint} with PING, using (and creating if needed) the client
   * shared for that endpoint; {@code user} (a policy's namespace/name) now uses this endpoint
   * and no longer any other.
   */
  public ProbeResult probe(String user, ValkeyEndpoint endpoint) {
    Shared shared = acquire(user, endpoint);
    for (String address : endpoint.addresses()) {
      try {
        shared.ping(address);
      } catch (RuntimeException e) {
        log.debug("Valkey probe of {} failed", address, e);
        return ValkeyFailures.classify(address, e);
      }
    }
    String unprotected = null;
    if (endpoint.password() != null) {
      String address = endpoint.addresses().get(0);
      if (shared.answersWithoutPassword(address)) {
        unprotected = "Valkey at " + address + " answers without a password, but "
            + "spec.valkey.passwordSecretKeyRef gives one: the server is not protected as this "
            + "policy assumes; set a password on the server (requirepass or an ACL user), or "
            + "remove passwordSecretKeyRef (and username) from the policy";
      }
    }
    return new ProbeResult(true, Reasons.CONNECTED, "Every Valkey address answered PING: "
        + String.join(", ", endpoint.addresses()), unprotected);
  }

  /**
   * The kept connection to the first address of the endpoint {@code user} last {@link #probe
   * probed}, reopened if it broke; the rollout gate reads and writes control keys through it.
   * Agents use the first address too (standalone Valkey).
   *
   * @throws IllegalStateException if {@code user} has not probed an endpoint
   * @throws io.lettuce.core.RedisException if the connection cannot be opened
   */
  public StatefulRedisConnection<String, String> connection(String user) {
    Shared shared;
    synchronized (this) {
      ValkeyEndpoint endpoint = byUser.get(user);
      shared = endpoint == null ? null : byEndpoint.get(endpoint);
    }
    if (shared == null) {
      throw new IllegalStateException("No Valkey endpoint for " + user + "; probe it first");
    }
    return shared.connection(shared.endpoint.addresses().get(0));
  }

  /** {@code user} no longer uses any endpoint; closes the client if it was the last user. */
  public void release(String user) {
    Shared toClose = null;
    synchronized (this) {
      ValkeyEndpoint endpoint = byUser.remove(user);
      if (endpoint != null) {
        Shared shared = byEndpoint.get(endpoint);
        shared.users.remove(user);
        if (shared.users.isEmpty()) {
          byEndpoint.remove(endpoint);
          toClose = shared;
        }
      }
    }
    if (toClose != null) {
      log.info("Closing the Valkey client for {}: no policy uses it any more", toClose.endpoint);
      toClose.close();
    }
  }

  /** Number of endpoints with an open client. */
  public synchronized int openClients() {
    return byEndpoint.size();
  }

  private Shared acquire(String user, ValkeyEndpoint endpoint) {
    synchronized (this) {
      ValkeyEndpoint current = byUser.get(user);
      if (endpoint.equals(current)) {
        return byEndpoint.get(endpoint);
      }
    }
    release(user);
    synchronized (this) {
      byUser.put(user, endpoint);
      Shared shared = byEndpoint.computeIfAbsent(endpoint, e -> {
        log.info("Opening a Valkey client for {}", e);
        return new Shared(e);
      });
      shared.users.add(user);
      return shared;
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      byEndpoint.values().forEach(Shared::close);
      byEndpoint.clear();
      byUser.clear();
    }
    resources.shutdown(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One endpoint's client and a lazily (re)opened connection per address. */
  private final class Shared {
    final ValkeyEndpoint endpoint;
    final RedisClient client;
    final Set<String> users = new HashSet<>();
    final Map<String, StatefulRedisConnection<String, String>> connections =
        new LinkedHashMap<>();

    Shared(ValkeyEndpoint endpoint) {
      this.endpoint = endpoint;
      this.client = RedisClient.create(resources);
      client.setOptions(ClientOptions.builder()
          .autoReconnect(false)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
          .timeoutOptions(TimeoutOptions.enabled(timeout))
          .build());
    }

    /** PINGs {@code address}, reconnecting once when the kept connection turns out broken. */
    synchronized void ping(String address) {
      StatefulRedisConnection<String, String> kept = connections.get(address);
      if (kept != null && kept.isOpen()) {
        try {
          kept.sync().ping();
          return;
        } catch (RuntimeException e) {
          log.debug("Kept connection to {} failed; reconnecting", address, e);
        }
      }
      discard(address);
      try {
        StatefulRedisConnection<String, String> fresh = client.connect(uri(address, true));
        connections.put(address, fresh);
        fresh.sync().ping();
      } catch (RuntimeException e) {
        discard(address);
        throw e;
      }
    }

    /**
     * Whether {@code address} answers PING on a connection that sends no credentials. A server
     * that requires a password answers {@code NOAUTH}; any failure counts as "requires one".
     */
    boolean answersWithoutPassword(String address) {
      try (StatefulRedisConnection<String, String> probe = client.connect(uri(address, false))) {
        return "PONG".equals(probe.sync().ping());
      } catch (RuntimeException e) {
        log.debug("Anonymous PING of {} failed, so it requires a password", address, e);
        return false;
      }
    }

    /** The open connection to {@code address}, opened now when there is none or it closed. */
    synchronized StatefulRedisConnection<String, String> connection(String address) {
      StatefulRedisConnection<String, String> kept = connections.get(address);
      if (kept != null && kept.isOpen()) {
        return kept;
      }
      discard(address);
      StatefulRedisConnection<String, String> fresh = client.connect(uri(address, true));
      connections.put(address, fresh);
      return fresh;
    }

    private void discard(String address) {
      StatefulRedisConnection<String, String> broken = connections.remove(address);
      if (broken != null) {
        broken.closeAsync();
      }
    }

    private RedisURI uri(String address, boolean withCredentials) {
      int colon = address.lastIndexOf(':');
      RedisURI.Builder uri = RedisURI.builder()
          .withHost(address.substring(0, colon))
          .withPort(Integer.parseInt(address.substring(colon + 1)))
          .withSsl(endpoint.tls())
          .withTimeout(timeout)
          .withClientName("warmgate-operator");
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

    synchronized void close() {
      connections.values().stream().filter(StatefulRedisConnection::isOpen)
          .forEach(StatefulRedisConnection::closeAsync);
      connections.clear();
      client.shutdownAsync(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
