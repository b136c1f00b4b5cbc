package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** What the agents report about one live schema-hash namespace of the cache. */
public class SchemaNamespaceStatus {

  @JsonPropertyDescription("Schema hash naming the namespace (wg:<cacheName>:<schemaHash>:...).")
  private String schemaHash;

  @JsonPropertyDescription("Stable or Canary: which pods of the target read this namespace.")
  private NamespaceRole role;

  @JsonPropertyDescription("Number of agents currently registered with this schema hash.")
  private Integer agents;

  @JsonPropertyDescription("Distinct keys the agents have written to this namespace.")
  private Long keys;

  @JsonPropertyDescription("L1+L2 hit ratio (0-1) of this namespace's agents over the last "
      + "reporting window.")
  private Double hitRatio;

  public String getSchemaHash() {
    return schemaHash;
  }

  public void setSchemaHash(String schemaHash) {
    this.schemaHash = schemaHash;
  }

  public NamespaceRole getRole() {
    return role;
  }

  public void setRole(NamespaceRole role) {
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
