package io.warmgate.operator.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.sync.RedisCommands;
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
   * The entries whose {@code expiresAt} is not before {@code now}; entries that do not parse or
   * lack a pod-template hash or schema hash are skipped (an agent heartbeats again within 5 s).
   *
   * @throws io.lettuce.core.RedisException if Valkey cannot be read
   */
  static List<Agent> live(RedisCommands<String, String> valkey, ControlKeys keys, Instant now) {
    Map<String, String> entries =
        WrongType.naming(keys.agents(), () -> valkey.hgetall(keys.agents()));
    List<Agent> live = new ArrayList<>();
    for (Map.Entry<String, String> entry : entries.entrySet()) {
      Agent agent = parse(entry.getKey(), entry.getValue());
      if (agent != null && agent.expiresAt() >= now.toEpochMilli()) {
        live.add(agent);
      }
    }
    return live;
  }

  private static Agent parse(String pod, String json) {
    try {
      JsonNode node = JSON.readTree(json);
      String podHash = node.path("podTemplateHash").asText("");
      String schema = node.path("schemaHash").asText("");
      if (podHash.isEmpty() || schema.isEmpty() || !node.path("expiresAt").canConvertToLong()) {
        log.debug("Ignoring registry entry of {} without podTemplateHash, schemaHash or "
            + "expiresAt: {}", pod, json);
        return null;
      }
      return new Agent(pod, podHash, schema, node.path("expiresAt").asLong());
    } catch (IOException e) {
      log.debug("Ignoring unparsable registry entry of {}: {}", pod, json);
      return null;
    }
  }
}
