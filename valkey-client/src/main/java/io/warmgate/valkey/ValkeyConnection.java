package io.warmgate.valkey;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.ConnectionIntent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;

/**
 * One open connection to Valkey, to a standalone server or a cluster, giving its users the
 * same command interfaces either way: Lettuce's {@link RedisClusterAsyncCommands} and
 * {@link RedisClusterCommands}, the common supertypes of its standalone and cluster APIs.
 *
 * <p>On a cluster, Lettuce sends each single-key command to the primary of the key's slot, splits
 * {@code MGET}, {@code DEL} and {@code EXISTS} into one command per slot (answers in the caller's
 * order), sends {@code EVAL} to the slot of its first key (so every key of a script must share that
 * slot, as the {@code {wg:<cache>}} control keys of one cache do), and follows
 * {@code MOVED} and {@code ASK}. Its view of which node serves which slot is refreshed every
 * {@value #TOPOLOGY_REFRESH_SECONDS} s and, at most once a second, whenever a redirection, an
 * unknown node, an uncovered slot or a node that cannot be reconnected suggests it changed; nodes the
 * cluster flags as failing are left out. Commands for a node that is disconnected fail at once
 * rather than wait in a queue (the caller falls back to the origin). Lettuce connects to a node on
 * its first command and, failing fast, would refuse the commands sent while that connection is
 * being made; so the connection to every node is opened with the cluster connection and whenever
 * the topology changes (a promoted replica, a new primary). When a primary fails, Lettuce drops it
 * from its view at once, but its replica takes over only a moment later; while slots have no
 * primary in the view, it is read again every second, so that lookups find the new primary even
 * when nothing else triggers a refresh (such as while the L2 circuit breaker sends no command).
 *
 * <p>Commands of one connection to one node are answered in the order they were sent, so a read
 * sees the writes sent before it on {@link #async()} (never on {@link #lookups()}, which may read
 * a replica). Thread-safe.
 */
public final class ValkeyConnection<V> implements AutoCloseable {

  /** How long one attempt to connect to a node may take. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  /** The longest wait between reconnect attempts (Lettuce's default is 30 s). */
  public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(2);

  /**
   * Client resources whose reconnect attempts back off from 50 ms to at most
   * {@link #MAX_RECONNECT_DELAY}, so a connection returns soon after an outage; {@code threads}
   * I/O and computation threads each, or Lettuce's defaults when 0.
   */
  public static ClientResources resources(int threads) {
    DefaultClientResources.Builder builder = DefaultClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(50), MAX_RECONNECT_DELAY, 2,
            TimeUnit.MILLISECONDS));
    if (threads > 0) {
      builder.ioThreadPoolSize(threads).computationThreadPoolSize(threads);
    }
    return builder.build();
  }
  static final long TOPOLOGY_REFRESH_SECONDS = 30;
  /**
   * Bound of the commands that read the cluster's topology. Lettuce takes it from the seeds' URIs,
   * whose default is a minute: a stalled node would delay every refresh that long.
   */
  private static final Duration TOPOLOGY_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private final AbstractRedisClient client;
  private final StatefulConnection<String, V> primary;
  private final StatefulConnection<String, V> replicaReads;
  private final RedisClusterAsyncCommands<String, V> async;
  private final RedisClusterAsyncCommands<String, V> lookups;
  private final RedisClusterCommands<String, V> sync;
  private final Disposable topologyWatch;
  /** Null for a {@link #wrap wrapped} connection, whose endpoint is unknown. */
  private final DedicatedConnections<V> dedicated;
  private final AtomicBoolean coverageRefreshPending = new AtomicBoolean();
  private final AtomicReference<CompletableFuture<Void>> topologyRefresh = new AtomicReference<>();
  private volatile boolean closed;

  private ValkeyConnection(AbstractRedisClient client, StatefulRedisConnection<String, V> c,
      DedicatedConnections<V> dedicated) {
    this.client = client;
    this.primary = c;
    this.replicaReads = null;
    this.async = c.async();
    this.lookups = async;
    this.sync = c.sync();
    this.topologyWatch = null;
    this.dedicated = dedicated;
  }

  private ValkeyConnection(RedisClusterClient client, StatefulRedisClusterConnection<String, V> c,
      StatefulRedisClusterConnection<String, V> replicaReads, DedicatedConnections<V> dedicated) {
    this.client = client;
    this.dedicated = dedicated;
    this.primary = c;
    this.replicaReads = replicaReads;
    this.async = c.async();
    this.lookups = replicaReads == null ? async : replicaReads.async();
    this.sync = c.sync();
    this.topologyWatch = client.getResources().eventBus().get()
        .filter(ClusterTopologyChangedEvent.class::isInstance)
        .subscribe(event -> {
          connectNodes(c, replicaReads);
          refreshWhileUncovered(client, c);
        });
  }

  /** Reads the topology again in a second if some slot has no primary in {@code c}'s view. */
  private void refreshWhileUncovered(RedisClusterClient client,
      StatefulRedisClusterConnection<String, V> c) {
    int covered = 0;
    for (RedisClusterNode node : c.getPartitions()) {
      if (node.getRole().isUpstream()) {
        covered += node.getSlots().size();
      }
    }
    if (closed || covered >= SlotHash.SLOT_COUNT
        || !coverageRefreshPending.compareAndSet(false, true)) {
      return;
    }
    client.getResources().eventExecutorGroup().schedule(() -> {
      if (closed) {
        return;
      }
      client.refreshPartitionsAsync().whenComplete((done, error) -> {
        coverageRefreshPending.set(false);
        refreshWhileUncovered(client, c);
      });
    }, 1, TimeUnit.SECONDS);
  }

  /**
   * Opens (or finds open) the connection to each node commands will go to: every primary for
   * {@code primary}; replicas too for {@code replicaReads}, if any. Completes when all attempts
   * did, failed ones included: a node that is down is reconnected on demand.
   */
  private static <V> CompletableFuture<Void> connectNodes(
      StatefulRedisClusterConnection<String, V> primary,
      StatefulRedisClusterConnection<String, V> replicaReads) {
    List<CompletableFuture<?>> attempts = new ArrayList<>();
    for (RedisClusterNode node : primary.getPartitions()) {
      RedisURI uri = node.getUri();
      boolean upstream = node.getRole().isUpstream();
      if (upstream) {
        attempts.add(primary.getConnectionAsync(uri.getHost(), uri.getPort(),
            ConnectionIntent.WRITE));
      }
      if (replicaReads != null) {
        // As Lettuce's replica reads pick them: primaries by their write connection.
        attempts.add(replicaReads.getConnectionAsync(uri.getHost(), uri.getPort(),
            upstream ? ConnectionIntent.WRITE : ConnectionIntent.READ));
      }
    }
    return CompletableFuture.allOf(attempts.stream()
        .map(a -> a.handle((c, error) -> null)).toArray(CompletableFuture[]::new));
  }

  /**
   * Connects to {@code endpoint}: the server, or a cluster through the first seed that answers.
   * The future fails if none answers; an open connection reconnects by itself after an outage.
   *
   * @param resources the Lettuce resources (threads, reconnect delay) to use; not closed by
   *     {@link #close()}
   * @param commandTimeout the bound Lettuce puts on each command, or null for none (the caller
   *     bounds its own waits)
   */
  public static <V> CompletableFuture<ValkeyConnection<V>> open(ValkeyEndpoint endpoint,
      RedisCodec<String, V> codec, ClientResources resources, Duration commandTimeout) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(resources, "resources");
    try {
      return endpoint.mode() == ValkeyEndpoint.Mode.CLUSTER
          ? openCluster(endpoint, codec, resources, commandTimeout)
          : openStandalone(endpoint, codec, resources, commandTimeout);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Wraps a connection to a standalone server opened elsewhere; {@link #close()} closes it but not
   * its client. For callers that hold such a connection already, such as tests and benchmarks.
   */
  public static <V> ValkeyConnection<V> wrap(StatefulRedisConnection<String, V> connection) {
    return new ValkeyConnection<>(null, Objects.requireNonNull(connection, "connection"), null);
  }

  private static <V> CompletableFuture<ValkeyConnection<V>> openStandalone(ValkeyEndpoint endpoint,
      RedisCodec<String, V> codec, ClientResources resources, Duration commandTimeout) {
    RedisURI uri = endpoint.nodes().get(0);
    RedisClient client = RedisClient.create(resources);
    ClientOptions.Builder options = ClientOptions.builder();
    common(options, endpoint, commandTimeout);
    client.setOptions(options.build());
    return client.connectAsync(codec, uri).toCompletableFuture()
        .thenApply(c -> new ValkeyConnection<>(client, c,
            new DedicatedConnections<>(endpoint, codec, resources, commandTimeout)))
        .whenComplete((c, error) -> {
          if (error != null) {
            client.shutdownAsync();
          }
        });
  }

  private static <V> CompletableFuture<ValkeyConnection<V>> openCluster(ValkeyEndpoint endpoint,
      RedisCodec<String, V> codec, ClientResources resources, Duration commandTimeout) {
    List<RedisURI> seeds = endpoint.nodes().stream()
        .map(u -> RedisURI.builder(u).withTimeout(TOPOLOGY_COMMAND_TIMEOUT).build()).toList();
    RedisClusterClient client = RedisClusterClient.create(resources, seeds);
    ClusterClientOptions.Builder options = ClusterClientOptions.builder()
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(Duration.ofSeconds(TOPOLOGY_REFRESH_SECONDS))
            .enableAllAdaptiveRefreshTriggers()
            // Lettuce's default of 30 s would ignore the trigger that follows a failover when an
            // earlier one fired while the cluster was still electing the replica.
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
            // A primary that refuses one reconnect is probably gone: look for its replacement.
            .refreshTriggersReconnectAttempts(1)
            .build())
        .nodeFilter(node -> !(node.is(RedisClusterNode.NodeFlag.FAIL)
            || node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)
            || node.is(RedisClusterNode.NodeFlag.NOADDR)));
    common(options, endpoint, commandTimeout);
    client.setOptions(options.build());
    // An asynchronous connect needs the topology first (the blocking one reads it by itself).
    CompletableFuture<StatefulRedisClusterConnection<String, V>> primary =
        client.refreshPartitionsAsync().toCompletableFuture()
            .thenCompose(loaded -> client.connectAsync(codec));
    DedicatedConnections<V> dedicated =
        new DedicatedConnections<>(endpoint, codec, resources, commandTimeout);
    return primary.thenCompose(p -> {
      if (endpoint.readFrom() == ValkeyEndpoint.ReadFrom.PRIMARY) {
        return connectNodes(p, null)
            .thenApply(done -> new ValkeyConnection<>(client, p, null, dedicated));
      }
      // A connection of its own, so that fill leases and locks on the primary one still see
      // their own writes.
      return client.connectAsync(codec).<ValkeyConnection<V>>thenCompose(reads -> {
        reads.setReadFrom(io.lettuce.core.ReadFrom.REPLICA_PREFERRED);
        return connectNodes(p, reads)
            .thenApply(done -> new ValkeyConnection<>(client, p, reads, dedicated));
      }).whenComplete((c, error) -> {
        if (error != null) {
          p.closeAsync();
        }
      });
    }).whenComplete((c, error) -> {
      if (error != null) {
        client.shutdownAsync();
      }
    });
  }

  /** Settings of both modes, and of {@link DedicatedConnections}. */
  static void common(ClientOptions.Builder options, ValkeyEndpoint endpoint,
      Duration commandTimeout) {
    options.autoReconnect(true)
        // Fail fast while disconnected instead of queueing: the caller goes to the origin.
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build());
    if (commandTimeout != null) {
      options.timeoutOptions(TimeoutOptions.enabled(commandTimeout));
    }
    if (endpoint.isTls()) {
      options.sslOptions(endpoint.sslOptions());
    }
  }

  /**
   * The asynchronous commands; on a cluster, each goes to the primary of its key's slot. Reads see
   * the writes sent before them.
   */
  public RedisClusterAsyncCommands<String, V> async() {
    return async;
  }

  /**
   * The asynchronous commands for lookups' reads: {@link #async()}, unless the endpoint reads from
   * replicas, in which case {@code GET} and {@code MGET} may be answered by a replica that has not
   * yet received the latest writes.
   */
  public RedisClusterAsyncCommands<String, V> lookups() {
    return lookups;
  }

  /** The blocking commands, routed as {@link #async()}. */
  public RedisClusterCommands<String, V> sync() {
    return sync;
  }

  /**
   * Opens a connection of its own to the node that holds {@code key}: the server, or on a cluster
   * the primary of the key's slot in this connection's current view of the topology. For commands
   * that hold the connection they run on ({@code XREAD BLOCK}, {@code BLPOP}), which must not stall
   * {@link #async()}. It has this connection's TLS, CA, credentials and command timeout, but it
   * neither reconnects by itself nor follows redirections: after a {@code MOVED} or {@code ASK}
   * error (the slot moved to another primary) or a lost connection (the node failed), close it,
   * call {@link #refreshTopology()} and open another. The caller closes it; {@link #close()}
   * closes it too.
   *
   * @return the connection; failed if no primary serves the key's slot at the moment (a failover
   *     in progress) or the node does not answer
   * @throws IllegalStateException if this connection was {@link #wrap wrapped}: its endpoint is
   *     unknown
   */
  public CompletableFuture<StatefulRedisConnection<String, V>> connectToPrimaryOf(String key) {
    Objects.requireNonNull(key, "key");
    if (dedicated == null) {
      throw new IllegalStateException("a wrapped connection cannot open others: open it with "
          + "ValkeyConnection.open(endpoint, ...)");
    }
    if (!(primary instanceof StatefulRedisClusterConnection<String, V> cluster)) {
      return dedicated.connectToServer();
    }
    int slot = SlotHash.getSlot(key);
    RedisClusterNode owner = cluster.getPartitions().getMasterBySlot(slot);
    if (owner == null) {
      return CompletableFuture.failedFuture(new RedisConnectionException("no primary serves slot "
          + slot + " of " + key + " at the moment (a failover in progress?): refresh the "
          + "topology and try again"));
    }
    return dedicated.connect(owner.getUri().getHost(), owner.getUri().getPort());
  }

  /**
   * Reads the cluster's topology again now, rather than at the next periodic or triggered refresh,
   * such as after a {@code MOVED} error on a connection of {@link #connectToPrimaryOf}. Calls while
   * a refresh is under way share it (many readers of one failed node ask at once). On a standalone
   * server, completes at once.
   */
  public CompletableFuture<Void> refreshTopology() {
    if (!(client instanceof RedisClusterClient cluster)) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> current = topologyRefresh.get();
    if (current != null && !current.isDone()) {
      return current;
    }
    CompletableFuture<Void> next = new CompletableFuture<>();
    if (!topologyRefresh.compareAndSet(current, next)) {
      return topologyRefresh.get();
    }
    cluster.refreshPartitionsAsync().whenComplete((done, error) -> {
      if (error != null) {
        next.completeExceptionally(error);
      } else {
        next.complete(null);
      }
    });
    return next;
  }

  /** Whether the connection is open (on a cluster: not closed; single nodes may be down). */
  public boolean isOpen() {
    return primary.isOpen();
  }

  /**
   * Closes the connections and the client this opened, those of {@link #connectToPrimaryOf}
   * included. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    if (topologyWatch != null) {
      topologyWatch.dispose();
    }
    if (dedicated != null) {
      dedicated.close();
    }
    if (replicaReads != null) {
      replicaReads.close();
    }
    primary.close();
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Closes as {@link #close()} does, without waiting. */
  public void closeAsync() {
    closed = true;
    if (topologyWatch != null) {
      topologyWatch.dispose();
    }
    if (dedicated != null) {
      dedicated.closeAsync();
    }
    if (replicaReads != null) {
      replicaReads.closeAsync();
    }
    primary.closeAsync().whenComplete((ignored, error) -> {
      if (client != null) {
        client.shutdownAsync();
      }
    });
  }
}
