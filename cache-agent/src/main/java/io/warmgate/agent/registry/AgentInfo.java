package io.warmgate.agent.registry;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.contract.valkey.AgentEntry;
import java.util.Objects;

/**
 * One agent's entry in {@code {wg:<cache>}:agents}, stored as JSON under {@link #field()} with
 * the properties of {@link AgentEntry}. Times are epoch millis; the entry is dead once
 * {@code expiresAt} has passed.
 *
 * @param pod the pod name
 * @param namespace the pod's namespace, or null if unknown
 * @param podTemplateHash the pod's {@code rollouts-pod-template-hash}, or null if unknown
 * @param schemaHash the schema hash the agent reads and writes
 * @param version the agent library's version
 * @param startedAt when the agent started
 * @param expiresAt when the entry is dead unless renewed
 */
@JsonPropertyOrder({AgentEntry.POD, AgentEntry.NAMESPACE, AgentEntry.POD_TEMPLATE_HASH,
    AgentEntry.SCHEMA_HASH, AgentEntry.VERSION, AgentEntry.STARTED_AT, AgentEntry.EXPIRES_AT})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record AgentInfo(@JsonProperty(AgentEntry.POD) String pod,
    @JsonProperty(AgentEntry.NAMESPACE) String namespace,
    @JsonProperty(AgentEntry.POD_TEMPLATE_HASH) String podTemplateHash,
    @JsonProperty(AgentEntry.SCHEMA_HASH) String schemaHash,
    @JsonProperty(AgentEntry.VERSION) String version,
    @JsonProperty(AgentEntry.STARTED_AT) long startedAt,
    @JsonProperty(AgentEntry.EXPIRES_AT) long expiresAt) {

  private static final ObjectMapper JSON = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /** Checks that pod, schema hash and version are set. */
  public AgentInfo {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(schemaHash, "schemaHash");
    Objects.requireNonNull(version, "version");
  }

  /** The entry's hash field: {@link AgentEntry#field}. */
  public String field() {
    return AgentEntry.field(namespace, pod);
  }

  /** Returns this entry with {@code expiresAt} replaced. */
  public AgentInfo expiringAt(long expiresAtMillis) {
    return new AgentInfo(pod, namespace, podTemplateHash, schemaHash, version, startedAt, expiresAtMillis);
  }

  /** Returns whether the entry is still alive at {@code nowMillis}. */
  public boolean isLiveAt(long nowMillis) {
    return expiresAt >= nowMillis;
  }

  /** Returns the JSON form stored in Valkey. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode agent entry of pod '" + pod + "'", e);
    }
  }

  /**
   * Parses an entry written by {@link #toJson()}; unknown properties are ignored, so newer agents
   * can add some.
   *
   * @throws IllegalArgumentException if {@code json} is not such an entry
   */
  public static AgentInfo fromJson(String json) {
    AgentInfo info;
    try {
      info = JSON.readValue(json, AgentInfo.class);
    } catch (JsonProcessingException | RuntimeException e) {
      throw notAnEntry(json, e);
    }
    if (info == null) { // the JSON literal null
      throw notAnEntry(json, null);
    }
    return info;
  }

  private static IllegalArgumentException notAnEntry(String json, Exception cause) {
    String shown = json == null || json.length() <= 200 ? json
        : json.substring(0, 200) + "... (" + json.length() + " chars)";
    return new IllegalArgumentException("not an agent entry: " + shown, cause);
  }
}
