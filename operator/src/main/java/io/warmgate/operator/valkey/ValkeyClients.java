package io.warmgate.operator.valkey;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one Valkey client per {@link ValkeyEndpoint} (a standalone server or a cluster), shared
 * by every policy that uses it, and closes it when the last such policy lets go.
 *
 * <p>Once {@link #watch watched}, each endpoint with a client is probed again on a timer, one
 * probe per endpoint however many policies use it, and the policies that use it are named to the
 * listener when its outcome changes: a policy then needs no timer of its own to notice Valkey
 * going down or coming back.
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
  private ScheduledExecutorService watcher;
  private Duration watchEvery;
  private Consumer<Set<String>> onChange;

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
    Link link = acquire(user, endpoint);
    ProbeResult result = link.probe();
    link.lastProbe = result;
    return result;
  }

  /**
   * From now on probes every endpoint with a client every {@code every} and, when the outcome
   * differs from the endpoint's last probe (by this timer or by {@link #probe}), passes the users
   * of that endpoint to {@code changed}, on the watcher's thread. One thread probes every
   * endpoint in turn, so a dead one delays the others by at most the probe timeout per address.
   *
   * @throws IllegalArgumentException if {@code every} is not positive
   * @throws IllegalStateException if already watched
   */
  public synchronized void watch(Duration every, Consumer<Set<String>> changed) {
    if (every.isNegative() || every.isZero()) {
      throw new IllegalArgumentException("the Valkey recheck interval must be positive, got "
          + every + "; set WARMGATE_VALKEY_RECHECK_INTERVAL to e.g. 30s");
    }
    if (watcher != null) {
      throw new IllegalStateException("Valkey endpoints are already watched");
    }
    watchEvery = every;
    onChange = Objects.requireNonNull(changed, "changed");
    watcher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "warmgate-valkey-watch");
      t.setDaemon(true);
      return t;
    });
    byEndpoint.values().forEach(this::schedule);
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
          if (link.watching != null) {
            link.watching.cancel(false);
          }
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
        Link opened = e.cluster() ? new ClusterLink(e, timeout, resources)
            : new StandaloneLink(e, timeout, resources);
        schedule(opened);
        return opened;
      });
      link.users.add(user);
      return link;
    }
  }

  /** Probes {@code link} every {@link #watchEvery} while watched; called holding this lock. */
  private void schedule(Link link) {
    if (watcher != null) {
      long millis = watchEvery.toMillis();
      link.watching = watcher.scheduleWithFixedDelay(() -> recheck(link), millis, millis,
          TimeUnit.MILLISECONDS);
    }
  }

  /** The timer's probe of {@code link}: names its users to the listener when the outcome moved. */
  private void recheck(Link link) {
    try {
      ProbeResult result = link.probe();
      ProbeResult before = link.lastProbe;
      link.lastProbe = result;
      if (result.equals(before)) {
        return;
      }
      Set<String> users;
      synchronized (this) {
        if (byEndpoint.get(link.endpoint) != link) {
          return; // released meanwhile
        }
        users = Set.copyOf(link.users);
      }
      log.info("Valkey at {} now: {} ({}); reconciling the {} policies using it",
          link.endpoint, result.reason(), result.message(), users.size());
      onChange.accept(users);
    } catch (RuntimeException e) {
      // A probe reports failures as results; anything else must not end the timer.
      log.warn("Rechecking Valkey at {} failed", link.endpoint, e);
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (watcher != null) {
        watcher.shutdownNow();
      }
      byEndpoint.values().forEach(Link::close);
      byEndpoint.clear();
      byUser.clear();
    }
    resources.shutdown(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
