package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.AgentEntry;
import io.warmgate.contract.valkey.ControlKeys;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads the live agents of a cache from {@code T:agents} (see docs/valkey-layout.md). */
final class AgentRegistry {

  private static final Logger log = LoggerFactory.getLogger(AgentRegistry.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private AgentRegistry() {}

  /**
   * The entries of pods in {@code namespace} whose {@code expiresAt} is not before {@code now};
   * entries that do not parse or lack a pod-template hash or schema hash are skipped (an agent
   * heartbeats again within 5 s). An entry of another namespace is skipped: two namespaces that
   * share one Valkey and one cache name (staging and production from the same manifests) never
   * see each other's agents. An entry without a namespace (agents that predate the field) is
   * kept: its pod-template hash, a hash of the pod template, still has to match the canary's.
   *
   * @param namespace the policy's namespace
   * @throws io.lettuce.core.RedisException if Valkey cannot be read
   */
  static List<Agent> live(RedisClusterCommands<String, String> valkey, ControlKeys keys,
      String namespace, Instant now) {
    Map<String, String> entries =
        WrongType.naming(keys.agents(), () -> valkey.hgetall(keys.agents()));
    List<Agent> live = new ArrayList<>();
    for (Map.Entry<String, String> entry : entries.entrySet()) {
      Agent agent = parse(entry.getKey(), entry.getValue());
      if (agent != null && agent.expiresAt() >= now.toEpochMilli()
          && (agent.namespace() == null || agent.namespace().equals(namespace))) {
        live.add(agent);
      }
    }
    return live;
  }

  /** @param field the hash field: {@code <namespace>/<pod>}, or the pod name (older agents) */
  private static Agent parse(String field, String json) {
    String pod = AgentEntry.podOf(field);
    try {
      JsonNode node = JSON.readTree(json);
      String podHash = node.path(AgentEntry.POD_TEMPLATE_HASH).asText("");
      String schema = node.path(AgentEntry.SCHEMA_HASH).asText("");
      if (podHash.isEmpty() || schema.isEmpty() || !node.path(AgentEntry.EXPIRES_AT).canConvertToLong()) {
        log.debug("Ignoring registry entry of {} without podTemplateHash, schemaHash or "
            + "expiresAt: {}", pod, json);
        return null;
      }
      String namespace = node.path(AgentEntry.NAMESPACE).asText("");
      return new Agent(pod, namespace.isEmpty() ? null : namespace, podHash, schema,
          node.path(AgentEntry.EXPIRES_AT).asLong());
    } catch (IOException e) {
      log.debug("Ignoring unparsable registry entry of {}: {}", pod, json);
      return null;
    }
  }
}
