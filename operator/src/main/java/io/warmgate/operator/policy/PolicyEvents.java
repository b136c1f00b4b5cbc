package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.events.EventRecorder;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.status.Conditions;
import java.time.Clock;

/**
 * Records a Kubernetes Event on a CachePolicy for each condition transition, so
 * {@code kubectl describe cpol} tells the story. Failing to record never fails a reconciliation.
 */
final class PolicyEvents {

  private final EventRecorder recorder;

  PolicyEvents(KubernetesClient client, Clock clock) {
    this.recorder = new EventRecorder(client, clock);
  }

  void transitioned(CachePolicy policy, Conditions.Transition transition) {
    Condition current = transition.current();
    boolean healthy = Condition.TRUE.equals(current.getStatus());
    String message = current.getType() + " is " + current.getStatus() + ": "
        + current.getMessage();
    recorder.record(new ObjectReferenceBuilder()
        .withApiVersion(policy.getApiVersion()).withKind(policy.getKind())
        .withName(policy.getMetadata().getName()).withNamespace(policy.getMetadata().getNamespace())
        .withUid(policy.getMetadata().getUid())
        .withResourceVersion(policy.getMetadata().getResourceVersion())
        .build(), !healthy, current.getReason(), message);
  }
}
