package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the agents report about one live key space (schema hash) of the cache. */
public class KeySpaceStatus {

  @JsonPropertyDescription("Schema hash naming the key space (wg:<cacheName>:<schemaHash>:...).")
  private String schemaHash;

  @JsonPropertyDescription("Stable or Canary: which pods of the target read this key space.")
  private KeySpaceRole role;

  @JsonPropertyDescription("Number of agents currently registered with this schema hash.")
  private Integer agents;

  @JsonPropertyDescription("Distinct keys the agents have written to this key space.")
  private Long keys;

  @JsonPropertyDescription("Percentage (0-100) of lookups of this key space's agents answered "
      + "by L1 or L2 over the last reporting window.")
  private Double hitRatio;

  public String getSchemaHash() {
    return schemaHash;
  }

  public void setSchemaHash(String schemaHash) {
    this.schemaHash = schemaHash;
  }

  public KeySpaceRole getRole() {
    return role;
  }

  public void setRole(KeySpaceRole role) {
    this.role = role;
  }

  public Integer getAgents() {
    return agents;
  }

  public void setAgents(Integer agents) {
    this.agents = agents;
  }

  public Long getKeys() {
    return keys;
  }

  public void setKeys(Long keys) {
    this.keys = keys;
  }

  public Double getHitRatio() {
    return hitRatio;
  }

  public void setHitRatio(Double hitRatio) {
    this.hitRatio = hitRatio;
  }
}
