package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * One aspect of a policy's state, following the Kubernetes condition conventions: the fields of
 * {@code metav1.Condition}. Kept here rather than fabric8's {@code Condition} because the CRD is
 * generated from these classes and fabric8's model carries no descriptions: with this copy
 * {@code kubectl explain cpol.status.conditions} documents every field and its values.
 */
public class Condition {

  /** Condition status values. */
  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  @JsonPropertyDescription("Type of the condition: Ready, L2Reachable, Warmed, RolloutHeld, "
      + "Conflict or ChangesFollowed.")
  private String type;

  @JsonPropertyDescription("True, False or Unknown.")
  private String status;

  @JsonPropertyDescription("CamelCase reason for the status, such as SecretNotFound.")
  private String reason;

  @JsonPropertyDescription("Human-readable detail: what was found and what to do about it.")
  private String message;

  @JsonPropertyDescription("When the status last changed (RFC 3339, UTC).")
  private String lastTransitionTime;

  @JsonPropertyDescription("The metadata.generation of the CachePolicy this condition was "
      + "computed from.")
  private Long observedGeneration;

  public Condition() {}

  public Condition(Condition other) {
    this.type = other.type;
    this.status = other.status;
    this.reason = other.reason;
    this.message = other.message;
    this.lastTransitionTime = other.lastTransitionTime;
    this.observedGeneration = other.observedGeneration;
  }

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getLastTransitionTime() {
    return lastTransitionTime;
  }

  public void setLastTransitionTime(String lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Condition c && Objects.equals(type, c.type)
        && Objects.equals(status, c.status) && Objects.equals(reason, c.reason)
        && Objects.equals(message, c.message)
        && Objects.equals(lastTransitionTime, c.lastTransitionTime)
        && Objects.equals(observedGeneration, c.observedGeneration);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, status, reason, message, lastTransitionTime, observedGeneration);
  }

  @Override
  public String toString() {
    return type + "=" + status + " (" + reason + ": " + message + ")";
  }
}
