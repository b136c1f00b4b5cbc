package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.events.EventRecorder;
import io.warmgate.operator.model.CachePolicy;
import java.time.Clock;

/**
 * Records one gate Event on both the CachePolicy and the Rollout it gates, so that
 * {@code kubectl describe} of either tells why the canary is held or was released. Failing to
 * record never fails a reconciliation.
 */
final class GateEvents {

  private final EventRecorder recorder;

  GateEvents(KubernetesClient client, Clock clock) {
    this.recorder = new EventRecorder(client, clock);
  }

  /** Records {@code event} on {@code policy} and on {@code rollout}. */
  void record(CachePolicy policy, RolloutView rollout, GateEvent event) {
    record(new ObjectReferenceBuilder()
        .withApiVersion(policy.getApiVersion()).withKind(policy.getKind())
        .withNamespace(policy.getMetadata().getNamespace())
        .withName(policy.getMetadata().getName()).withUid(policy.getMetadata().getUid())
        .build(), event);
    recordOnRollout(rollout, event);
  }

  /** Records {@code event} on {@code rollout} only. */
  void recordOnRollout(RolloutView rollout, GateEvent event) {
    record(new ObjectReferenceBuilder()
        .withApiVersion(RolloutPatcher.API_VERSION).withKind(RolloutPatcher.KIND)
        .withNamespace(rollout.namespace()).withName(rollout.name()).withUid(rollout.uid())
        .build(), event);
  }

  private void record(ObjectReference involved, GateEvent event) {
    recorder.record(involved, event.warning(), event.reason(), event.message());
  }

  /** One gate Event: {@code Warning} or {@code Normal}, a CamelCase reason and a message. */
  record GateEvent(boolean warning, String reason, String message) {}
}
