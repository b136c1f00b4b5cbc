package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import java.util.Optional;

/** Finds a policy's target workload in the informer caches. */
final class TargetLookup {

  static final String ROLLOUT_API_VERSION = "argoproj.io/v1alpha1";

  private final InformerEventSource<Deployment, CachePolicy> deployments;
  private final InformerEventSource<StatefulSet, CachePolicy> statefulSets;
  private final InformerEventSource<GenericKubernetesResource, CachePolicy> rollouts;

  /** @param rollouts null when Argo Rollouts is not installed */
  TargetLookup(InformerEventSource<Deployment, CachePolicy> deployments,
      InformerEventSource<StatefulSet, CachePolicy> statefulSets,
      InformerEventSource<GenericKubernetesResource, CachePolicy> rollouts) {
    this.deployments = deployments;
    this.statefulSets = statefulSets;
    this.rollouts = rollouts;
  }

  /** The target, or a message saying why it was not found and what to do. */
  Result find(String namespace, TargetRef ref) {
    ResourceID id = new ResourceID(ref.getName(), namespace);
    if (ref.getKind() == TargetKind.Deployment) {
      return deployments.get(id).<Result>map(Result::found)
          .orElseGet(() -> Result.missing("Deployment " + namespace + "/" + ref.getName()
              + " named by spec.targetRef does not exist; create it or fix spec.targetRef.name"));
    }
    if (ref.getKind() == TargetKind.StatefulSet) {
      return statefulSets.get(id).<Result>map(Result::found)
          .orElseGet(() -> Result.missing("StatefulSet " + namespace + "/" + ref.getName()
              + " named by spec.targetRef does not exist; create it or fix spec.targetRef.name"));
    }
    if (rollouts == null) {
      return Result.missing("spec.targetRef.kind is Rollout but Argo Rollouts is not installed "
          + "(no " + ROLLOUT_API_VERSION + " Rollout API); install Argo Rollouts and restart the "
          + "operator, or target a Deployment or StatefulSet");
    }
    return rollouts.get(id).<Result>map(Result::found)
        .orElseGet(() -> Result.missing("Rollout " + namespace + "/" + ref.getName()
            + " named by spec.targetRef does not exist; create it or fix spec.targetRef.name"));
  }

  record Result(Optional<HasMetadata> target, String problem) {
    static Result found(HasMetadata target) {
      return new Result(Optional.of(target), null);
    }

    static Result missing(String problem) {
      return new Result(Optional.empty(), problem);
    }
  }
}
