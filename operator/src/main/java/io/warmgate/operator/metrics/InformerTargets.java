package io.warmgate.operator.metrics;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.processing.event.EventSourceManager;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.Cache;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Ready replicas of a policy's target, read from the Deployment, StatefulSet and Rollout
 * informers the CachePolicy controller already runs (no API call). A target the informers do not hold (not
 * created yet, Argo Rollouts not installed, a replica that does not lead yet) is unknown.
 */
public final class InformerTargets implements PolicyMetrics.Targets {

  private final EventSourceManager<CachePolicy> sources;

  public InformerTargets(EventSourceManager<CachePolicy> sources) {
    this.sources = sources;
  }

  @Override
  public OptionalInt readyReplicas(String namespace, TargetRef ref) {
    if (ref.getKind() == null || ref.getName() == null) {
      return OptionalInt.empty();
    }
    ResourceID id = new ResourceID(ref.getName(), namespace);
    if (ref.getKind() == TargetKind.Deployment) {
      return find(Deployment.class, id).map(d -> OptionalInt.of(d.getStatus() == null
              || d.getStatus().getReadyReplicas() == null ? 0 : d.getStatus().getReadyReplicas()))
          .orElse(OptionalInt.empty());
    }
    if (ref.getKind() == TargetKind.StatefulSet) {
      return find(StatefulSet.class, id).map(s -> OptionalInt.of(s.getStatus() == null
              || s.getStatus().getReadyReplicas() == null ? 0 : s.getStatus().getReadyReplicas()))
          .orElse(OptionalInt.empty());
    }
    return find(GenericKubernetesResource.class, id)
        .map(r -> OptionalInt.of(rolloutReadyReplicas(r))).orElse(OptionalInt.empty());
  }

  static int rolloutReadyReplicas(GenericKubernetesResource rollout) {
    Object status = rollout.getAdditionalProperties().get("status");
    if (status instanceof Map<?, ?> map && map.get("readyReplicas") instanceof Number n) {
      return n.intValue();
    }
    return 0;
  }

  @SuppressWarnings("unchecked")
  private <R extends HasMetadata> Optional<R> find(Class<R> type, ResourceID id) {
    try {
      for (EventSource<R, CachePolicy> source : sources.getEventSourcesFor(type)) {
        if (source instanceof Cache<?> cache) {
          Optional<R> found = ((Cache<R>) cache).get(id);
          if (found.isPresent()) {
            return found;
          }
        }
      }
    } catch (RuntimeException e) {
      // Not started yet (a follower), or stopping: unknown, never a failed scrape.
    }
    return Optional.empty();
  }
}
