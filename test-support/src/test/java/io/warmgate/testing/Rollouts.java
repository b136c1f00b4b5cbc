package io.warmgate.testing;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import java.util.List;
import java.util.Map;

/** Rollout manifests for the smoke tests. */
final class Rollouts {

  private Rollouts() {
  }

  /** Returns a 2-replica canary Rollout (50 %, then an indefinite pause) of a placeholder image. */
  static GenericKubernetesResource canary(String name) {
    Map<String, Object> container = Map.of("name", "app", "image", "example.invalid/app:1");
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(ArgoRollouts.API_VERSION).withKind("Rollout")
        .withNewMetadata().withName(name).endMetadata()
        .addToAdditionalProperties("spec", Map.of(
            "replicas", 2,
            "selector", Map.of("matchLabels", Map.of("app", name)),
            "template", Map.of(
                "metadata", Map.of("labels", Map.of("app", name)),
                "spec", Map.of("containers", List.of(container))),
            "strategy", Map.of("canary", Map.of("steps", List.of(
                Map.of("setWeight", 50), Map.of("pause", Map.of()))))))
        .build();
  }
}
