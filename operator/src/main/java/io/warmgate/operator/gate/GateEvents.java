package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.warmgate.operator.model.CachePolicy;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records one gate Event on both the CachePolicy and the Rollout it gates, so that
 * {@code kubectl describe} of either tells why the canary is held or was released. Failing to
 * record never fails a reconciliation.
 */
final class GateEvents {

  static final String COMPONENT = "warmgate-operator";
  private static final Logger log = LoggerFactory.getLogger(GateEvents.class);
  private static final AtomicLong SEQUENCE = new AtomicLong();

  private final KubernetesClient client;
  private final Clock clock;

  GateEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Records {@code event} on {@code policy} and on {@code rollout}. */
  void record(CachePolicy policy, RolloutView rollout, GateEvent event) {
    record(new ObjectReferenceBuilder()
        .withApiVersion(policy.getApiVersion()).withKind(policy.getKind())
        .withNamespace(policy.getMetadata().getNamespace())
        .withName(policy.getMetadata().getName()).withUid(policy.getMetadata().getUid())
        .build(), event);
    record(new ObjectReferenceBuilder()
        .withApiVersion(RolloutPatcher.API_VERSION).withKind(RolloutPatcher.KIND)
        .withNamespace(rollout.namespace()).withName(rollout.name()).withUid(rollout.uid())
        .build(), event);
  }

  private void record(ObjectReference involved, GateEvent gateEvent) {
    String now = DateTimeFormatter.ISO_INSTANT.format(
        Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
    String message = gateEvent.message().length() > 1024
        ? gateEvent.message().substring(0, 1024) : gateEvent.message();
    Event event = new EventBuilder()
        .withNewMetadata()
        .withName(involved.getName() + "." + Long.toHexString(System.currentTimeMillis())
            + SEQUENCE.incrementAndGet())
        .withNamespace(involved.getNamespace())
        .endMetadata()
        .withInvolvedObject(involved)
        .withType(gateEvent.warning() ? "Warning" : "Normal")
        .withReason(gateEvent.reason())
        .withMessage(message)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build();
    try {
      client.v1().events().inNamespace(involved.getNamespace()).resource(event).create();
    } catch (KubernetesClientException e) {
      log.warn("Could not record event {} on {} {}/{}: {}", gateEvent.reason(),
          involved.getKind(), involved.getNamespace(), involved.getName(), e.getMessage());
    }
  }

  /** One gate Event: {@code Warning} or {@code Normal}, a CamelCase reason and a message. */
  record GateEvent(boolean warning, String reason, String message) {}
}
