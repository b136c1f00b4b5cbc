package io.warmgate.operator.valkey;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one Valkey client per {@link ValkeyEndpoint} (a standalone server or a cluster), shared
 * by every policy that uses it, and closes it when the last such policy lets go.
 *
 * <p>Thread-safe. {@link #probe} blocks for at most the probe timeout per address or node, so a
 * dead endpoint slows only the policies that use it.
 */
public final class ValkeyClients implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ValkeyClients.class);

  private final Duration timeout;
  private final ClientResources resources;
  private final Map<ValkeyEndpoint, Link> byEndpoint = new HashMap<>();
  private final Map<String, ValkeyEndpoint> byUser = new HashMap<>();

  /**
   * The user name a policy's connection is kept under: {@code <namespace>/<name>}, so that the
   * reconciler and the plan endpoint find the same one.
   */
  public static String user(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** @param timeout how long one connect or command may take before it counts as failed */
  public ValkeyClients(Duration timeout) {
    this.timeout = timeout;
    this.resources = DefaultClientResources.builder().ioThreadPoolSize(2)
        .computationThreadPoolSize(2).build();
  }

  /**
   * Checks {@code endpoint}: PING of the server, or of every node of the cluster with its
   * {@code CLUSTER INFO}; on failure, the reason tells refused, unknown host, credentials, TLS
   * mismatch, not Valkey and the wrong mode apart. Uses (and creates if needed) the client
   * shared for that endpoint; {@code user} (a policy's namespace/name) now uses this endpoint
   * and no longer any other.
   */
  public ProbeResult probe(String user, ValkeyEndpoint endpoint) {
    return acquire(user, endpoint).probe();
  }

  /**
   * The commands to the endpoint {@code user} last {@link #probe probed}, through a kept
   * connection reopened if it broke; the rollout gate reads and writes control keys with them.
   *
   * @throws IllegalStateException if {@code user} has not probed an endpoint
   * @throws io.lettuce.core.RedisException if the connection cannot be opened
   */
  public ValkeyCommands commands(String user) {
    Link link;
    synchronized (this) {
      ValkeyEndpoint endpoint = byUser.get(user);
      link = endpoint == null ? null : byEndpoint.get(endpoint);
    }
    if (link == null) {
      throw new IllegalStateException("No Valkey endpoint for " + user + "; probe it first");
    }
    return link.commands();
  }

  /** {@code user} no longer uses any endpoint; closes the client if it was the last user. */
  public void release(String user) {
    Link toClose = null;
    synchronized (this) {
      ValkeyEndpoint endpoint = byUser.remove(user);
      if (endpoint != null) {
        Link link = byEndpoint.get(endpoint);
        link.users.remove(user);
        if (link.users.isEmpty()) {
          byEndpoint.remove(endpoint);
          toClose = link;
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

  private Link acquire(String user, ValkeyEndpoint endpoint) {
    synchronized (this) {
      ValkeyEndpoint current = byUser.get(user);
      if (endpoint.equals(current)) {
        return byEndpoint.get(endpoint);
      }
    }
    release(user);
    synchronized (this) {
      byUser.put(user, endpoint);
      Link link = byEndpoint.computeIfAbsent(endpoint, e -> {
        log.info("Opening a Valkey client for {}", e);
        return e.cluster() ? new ClusterLink(e, timeout, resources)
            : new StandaloneLink(e, timeout, resources);
      });
      link.users.add(user);
      return link;
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      byEndpoint.values().forEach(Link::close);
      byEndpoint.clear();
      byUser.clear();
    }
    resources.shutdown(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
