package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The rollout gate's view of the current canary. */
public class GateStatus {

  @JsonPropertyDescription("rollouts-pod-template-hash of the canary pods.")
  private String canaryPodHash;

  @JsonPropertyDescription("Schema hash of the stable pods.")
  private String stableSchemaHash;

  @JsonPropertyDescription("Schema hash of the canary pods.")
  private String canarySchemaHash;

  @JsonPropertyDescription("Idle, Waiting, Warming, Promoted, Skipped, TimedOut or Aborted.")
  private GatePhase phase;

  @JsonPropertyDescription("Percentage (0-100) of the hot set present in the canary's namespace; "
      + "for more than 1,024 ids, estimated from a fixed random sample of 1,024.")
  private Double coverage;

  @JsonPropertyDescription("Coverage percentage the canary must reach (warmup.minCoverage).")
  private Integer target;

  @JsonPropertyDescription("When the gate started holding this canary (RFC 3339, UTC).")
  private String startedAt;

  @JsonPropertyDescription("When the gate released, skipped or gave up on this canary (RFC 3339, "
      + "UTC).")
  private String releasedAt;

  @JsonPropertyDescription("Coverage percentage (0-100) measured when the gate released, "
      + "promoted on timeout or aborted this canary; unset while it holds or when Valkey could not "
      + "be read.")
  private Double releasedCoverage;

  @JsonPropertyDescription("metadata.generation of the Rollout this status speaks about; wait "
      + "for it to reach the Rollout's generation before waiting for condition Warmed.")
  private Long rolloutGeneration;

  @JsonPropertyDescription("Human-readable detail of the phase.")
  private String message;

  @JsonPropertyDescription("The origin load a release of this canary now would add, while a "
      + "canary with a new schema hash is in progress.")
  private ForecastStatus forecast;

  public ForecastStatus getForecast() {
    return forecast;
  }

  public void setForecast(ForecastStatus forecast) {
    this.forecast = forecast;
  }

  public String getCanaryPodHash() {
    return canaryPodHash;
  }

  public void setCanaryPodHash(String canaryPodHash) {
    this.canaryPodHash = canaryPodHash;
  }

  public String getStableSchemaHash() {
    return stableSchemaHash;
  }

  public void setStableSchemaHash(String stableSchemaHash) {
    this.stableSchemaHash = stableSchemaHash;
  }

  public String getCanarySchemaHash() {
    return canarySchemaHash;
  }

  public void setCanarySchemaHash(String canarySchemaHash) {
    this.canarySchemaHash = canarySchemaHash;
  }

  public GatePhase getPhase() {
    return phase;
  }

  public void setPhase(GatePhase phase) {
    this.phase = phase;
  }

  public Double getCoverage() {
    return coverage;
  }

  public void setCoverage(Double coverage) {
    this.coverage = coverage;
  }

  public Integer getTarget() {
    return target;
  }

  public void setTarget(Integer target) {
    this.target = target;
  }

  public String getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(String startedAt) {
    this.startedAt = startedAt;
  }

  public String getReleasedAt() {
    return releasedAt;
  }

  public void setReleasedAt(String releasedAt) {
    this.releasedAt = releasedAt;
  }

  public Double getReleasedCoverage() {
    return releasedCoverage;
  }

  public void setReleasedCoverage(Double releasedCoverage) {
    this.releasedCoverage = releasedCoverage;
  }

  public Long getRolloutGeneration() {
    return rolloutGeneration;
  }

  public void setRolloutGeneration(Long rolloutGeneration) {
    this.rolloutGeneration = rolloutGeneration;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
