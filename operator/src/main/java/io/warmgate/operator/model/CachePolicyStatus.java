package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** The observed state of a {@link CachePolicy}, written by the operator only. */
public class CachePolicyStatus {

  @JsonPropertyDescription("The metadata.generation this status was computed from.")
  private Long observedGeneration;

  @JsonPropertyDescription("Ready (valid, target, Secret and Valkey found), L2Reachable (every "
      + "Valkey address answers), Warmed (the canary's namespace met the warm-up criteria), "
      + "RolloutHeld (the gate holds the rollout), Conflict (an older policy gates the same "
      + "Rollout) and, with spec.changeStream, ChangesFollowed (a pod reads the change stream and "
      + "keeps up with it).")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("Live key spaces of the cache (one per schema hash: "
      + "wg:<cacheName>:<schemaHash>:...), as the agents report them. Not Kubernetes namespaces.")
  private List<KeySpaceStatus> keySpaces = new ArrayList<>();

  @JsonPropertyDescription("The rollout gate's view of the current canary.")
  private GateStatus gate;

  @JsonPropertyDescription("With spec.changeStream: the change-stream reader's progress as the "
      + "operator last read it from Valkey.")
  private ChangeStreamStatus changeStream;

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public List<KeySpaceStatus> getKeySpaces() {
    return keySpaces;
  }

  public void setKeySpaces(List<KeySpaceStatus> keySpaces) {
    this.keySpaces = keySpaces;
  }

  public GateStatus getGate() {
    return gate;
  }

  public void setGate(GateStatus gate) {
    this.gate = gate;
  }

  public ChangeStreamStatus getChangeStream() {
    return changeStream;
  }

  public void setChangeStream(ChangeStreamStatus changeStream) {
    this.changeStream = changeStream;
  }
}
