package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A hot id absent from the canary's key space, and how often the fleet looks it up. */
public class HotIdStatus {

  @JsonPropertyDescription("The id, as the application looks it up (cut to 64 characters).")
  private String id;

  @JsonPropertyDescription("Its lookups per second across the fleet, estimated from the hot set.")
  private Double readsPerSecond;

  public HotIdStatus() {}

  public HotIdStatus(String id, Double readsPerSecond) {
    this.id = id;
    this.readsPerSecond = readsPerSecond;
  }

  public String getId() {
    return id;
  }

  public void setId(String id) {
    this.id = id;
  }

  public Double getReadsPerSecond() {
    return readsPerSecond;
  }

  public void setReadsPerSecond(Double readsPerSecond) {
    this.readsPerSecond = readsPerSecond;
  }
}
