package io.warmgate.operator.valkey;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import io.warmgate.operator.status.Reasons;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Valkey cluster, found through the endpoint's seed nodes. The gate's commands go through
 * Lettuce's cluster connection (each to the primary of its key's slot, following MOVED and ASK;
 * the topology read again every {@value #TOPOLOGY_REFRESH_SECONDS} s and when a redirection or a
 * lost node says it changed). A probe PINGs every node of the topology and reads
 * {@code CLUSTER INFO} from the first that answers: see {@link ClusterHealth}.
 */
final class ClusterLink extends Link {

  static final long TOPOLOGY_REFRESH_SECONDS = 30;
  private static final Logger log = LoggerFactory.getLogger(ClusterLink.class);

  private final RedisClusterClient client;
  private StatefulRedisClusterConnection<String, String> connection;

  ClusterLink(ValkeyEndpoint endpoint, Duration timeout, ClientResources resources) {
    super(endpoint, timeout, resources);
    client = RedisClusterClient.create(resources,
        endpoint.addresses().stream().map(address -> uri(address, true)).toList());
    client.setOptions(options(ClusterClientOptions.builder()
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(Duration.ofSeconds(TOPOLOGY_REFRESH_SECONDS))
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
            .build()))
        // Lettuce connects to a node on its first command: queue that command meanwhile, within
        // the command timeout, rather than refuse it.
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.DEFAULT)
        .build());
  }

  @Override
  ProbeResult probe() {
    StatefulRedisClusterConnection<String, String> c;
    try {
      c = open();
      client.refreshPartitions();
    } catch (RuntimeException e) {
      log.debug("Cannot read the topology of {}", endpoint, e);
      return seedProblem(e);
    }
    List<RedisClusterNode> nodes = new ArrayList<>();
    c.getPartitions().forEach(nodes::add);
    nodes.sort((a, b) -> Boolean.compare(b.getRole().isUpstream(), a.getRole().isUpstream()));
    Map<String, String> silent = new TreeMap<>();
    String info = null;
    String answering = null;
    for (RedisClusterNode node : nodes) {
      String address = ClusterHealth.address(node);
      try {
        StatefulRedisConnection<String, String> toNode = c.getConnection(node.getNodeId());
        toNode.sync().ping();
        if (info == null) {
          info = toNode.sync().clusterInfo();
          answering = address;
        }
      } catch (RuntimeException e) {
        log.debug("Cluster node {} does not answer", address, e);
        silent.put(address, ValkeyFailures.cause(e));
      }
    }
    if (info == null) {
      return ProbeResult.failed(Reasons.CLUSTER_DOWN, "No node of the Valkey cluster answers ("
          + String.join("; ", silent.entrySet().stream()
              .map(n -> n.getKey() + ": " + n.getValue()).toList())
          + "); agents read the origin until it recovers");
    }
    ProbeResult health = ClusterHealth.of(info, nodes, silent);
    return health.reachable()
        ? new ProbeResult(true, health.reason(), health.message(), unprotected(answering))
        : health;
  }

  /**
   * Why no seed gave the topology: the first seed's own failure (refused, TLS, credentials, not
   * Valkey), or, when a seed answers as a standalone server, that the mode is wrong.
   */
  private ProbeResult seedProblem(RuntimeException clusterFailure) {
    ProbeResult first = null;
    for (String seed : endpoint.addresses()) {
      try (StatefulRedisConnection<String, String> toSeed = single.connect(uri(seed, true))) {
        toSeed.sync().ping();
        if (!clusterEnabled(toSeed)) {
          return ProbeResult.failed(Reasons.MODE_MISMATCH, "Valkey at " + seed + " runs "
              + "standalone (cluster support disabled), but spec.valkey.mode is Cluster; set "
              + "spec.valkey.mode: Standalone, or list the nodes of a cluster");
        }
        return failed(seed, clusterFailure);
      } catch (RuntimeException e) {
        if (first == null) {
          first = failed(seed, e);
        }
      }
    }
    return first;
  }

  @Override
  synchronized ValkeyCommands commands() {
    StatefulRedisClusterConnection<String, String> c = open();
    return new ValkeyCommands(c.sync(), c.async());
  }

  private synchronized StatefulRedisClusterConnection<String, String> open() {
    if (connection == null || !connection.isOpen()) {
      connection = client.connect();
    }
    return connection;
  }

  @Override
  synchronized void close() {
    if (connection != null) {
      connection.closeAsync();
      connection = null;
    }
    client.shutdownAsync(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
    super.close();
  }
}
