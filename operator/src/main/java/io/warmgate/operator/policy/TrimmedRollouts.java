package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.util.Map;

/**
 * The Rollout informer's store. The gate reads a Rollout's spec, status and its own annotation,
 * so Rollouts stay whole but for two fields nothing here reads and that are often the largest of
 * the object: {@code metadata.managedFields} and {@code kubectl apply}'s copy of the manifest.
 * Every change is made with a patch, never by writing the cached object back.
 */
final class TrimmedRollouts {

  static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  private TrimmedRollouts() {}

  static TransformingItemStore<GenericKubernetesResource> store() {
    return new TransformingItemStore<>(TrimmedRollouts::trim);
  }

  static GenericKubernetesResource trim(GenericKubernetesResource rollout) {
    rollout.getMetadata().setManagedFields(null);
    Map<String, String> annotations = rollout.getMetadata().getAnnotations();
    if (annotations != null) {
      annotations.remove(LAST_APPLIED);
    }
    return rollout;
  }
}
