package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * What the operator last read of the change-stream reader's progress, the Valkey hash
 * {@code {wg:<cacheName>}:changes:<name>} that the reading pod's {@code ChangeStreamWatcher}
 * saves every second.
 */
public class ChangeStreamStatus {

  @JsonPropertyDescription("The change stream (spec.changeStream.name).")
  private String name;

  @JsonPropertyDescription("The pod that last saved the reader's progress, as <pod name>/<random "
      + "id>; unset while no reader has saved any.")
  private String reader;

  @JsonPropertyDescription("Commit timestamp (RFC 3339) before which every change of the stream "
      + "has been invalidated, as the reader last saved it.")
  private String watermark;

  @JsonPropertyDescription("Seconds from watermark to observedAt (the operator's clock), to 0.1 s: "
      + "how long a row change may still be served from the cache before its invalidation. Keeps "
      + "growing while no reader runs.")
  private Double lagSeconds;

  @JsonPropertyDescription("When the reader last saved its progress (RFC 3339, UTC); a reader "
      + "saves it every second.")
  private String updatedAt;

  @JsonPropertyDescription("When the operator read the reader's progress from Valkey (RFC 3339, "
      + "UTC).")
  private String observedAt;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getReader() {
    return reader;
  }

  public void setReader(String reader) {
    this.reader = reader;
  }

  public String getWatermark() {
    return watermark;
  }

  public void setWatermark(String watermark) {
    this.watermark = watermark;
  }

  public Double getLagSeconds() {
    return lagSeconds;
  }

  public void setLagSeconds(Double lagSeconds) {
    this.lagSeconds = lagSeconds;
  }

  public String getUpdatedAt() {
    return updatedAt;
  }

  public void setUpdatedAt(String updatedAt) {
    this.updatedAt = updatedAt;
  }

  public String getObservedAt() {
    return observedAt;
  }

  public void setObservedAt(String observedAt) {
    this.observedAt = observedAt;
  }
}
