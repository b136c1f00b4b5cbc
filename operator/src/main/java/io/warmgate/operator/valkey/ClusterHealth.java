package io.warmgate.operator.valkey;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.warmgate.operator.status.Reasons;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code L2Reachable} says about a Valkey cluster, from one node's {@code CLUSTER INFO}, the
 * topology, and which nodes did not answer PING:
 * <ul>
 *   <li>{@code cluster_state:ok} and every node answered: {@code Connected}, with the slots
 *       served and the number of primaries and replicas;
 *   <li>{@code cluster_state:ok} but some node did not answer or is flagged failing:
 *       {@code ClusterDegraded}, still reachable (every slot has a primary), naming the nodes;
 *   <li>{@code cluster_state:fail}: {@code ClusterDown}, unreachable, with the slots still served
 *       and the nodes at fault.
 * </ul>
 * Messages list nodes by address, so that they stay the same while the cluster does.
 */
final class ClusterHealth {

  private ClusterHealth() {}

  /**
   * @param clusterInfo the {@code CLUSTER INFO} reply of a node that answered
   * @param nodes the cluster's nodes as that node sees them
   * @param silent address ({@code host:port}) of each node that did not answer PING, with why
   */
  static ProbeResult of(String clusterInfo, Iterable<RedisClusterNode> nodes,
      Map<String, String> silent) {
    Map<String, String> info = parse(clusterInfo);
    long served = number(info, "cluster_slots_ok");
    List<RedisClusterNode> sorted = new ArrayList<>();
    nodes.forEach(sorted::add);
    sorted.sort(Comparator.comparing(ClusterHealth::address));
    Map<String, String> addressById = new HashMap<>();
    for (RedisClusterNode node : sorted) {
      addressById.put(node.getNodeId(), address(node));
    }
    int primaries = 0;
    int replicas = 0;
    List<String> faults = new ArrayList<>();
    for (RedisClusterNode node : sorted) {
      boolean primary = node.getRole().isUpstream();
      if (primary && !node.getSlots().isEmpty()) {
        primaries++;
      } else if (!primary) {
        replicas++;
      }
      String role = primary ? "primary of " + node.getSlots().size() + " slots"
          : "replica of " + addressById.getOrDefault(node.getSlaveOf(), "an unknown primary");
      String why = silent.get(address(node));
      if (why != null) {
        faults.add("node " + address(node) + " (" + role + ") does not answer: " + why);
      } else if (node.is(RedisClusterNode.NodeFlag.FAIL)
          || node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
        faults.add("node " + address(node) + " (" + role + ") is flagged failing by the cluster");
      }
    }
    String slots = served + " of " + SlotHash.SLOT_COUNT + " slots served";
    String shape = primaries + (primaries == 1 ? " primary, " : " primaries, ") + replicas
        + (replicas == 1 ? " replica" : " replicas");
    String state = info.getOrDefault("cluster_state", "unknown");
    if (!"ok".equals(state)) {
      return ProbeResult.failed(Reasons.CLUSTER_DOWN, "Valkey cluster is down (cluster_state:"
          + state + "): " + slots + " by " + shape
          + (faults.isEmpty() ? "" : "; " + String.join("; ", faults))
          + ". Agents read the origin until it recovers; check the nodes named, or that the "
          + "cluster was created (every slot assigned)");
    }
    if (!faults.isEmpty()) {
      return new ProbeResult(true, Reasons.CLUSTER_DEGRADED, "Valkey cluster serves its slots ("
          + slots + " by " + shape + "), but " + String.join("; ", faults)
          + ". Lookups keep working; another failure may leave slots without a primary", null);
    }
    return new ProbeResult(true, Reasons.CONNECTED, "Valkey cluster ok: " + slots + " by "
        + shape + "; every node answered PING", null);
  }

  static String address(RedisClusterNode node) {
    return node.getUri().getHost() + ":" + node.getUri().getPort();
  }

  private static Map<String, String> parse(String clusterInfo) {
    Map<String, String> fields = new HashMap<>();
    for (String line : clusterInfo.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  private static long number(Map<String, String> info, String field) {
    try {
      return Long.parseLong(info.getOrDefault(field, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
