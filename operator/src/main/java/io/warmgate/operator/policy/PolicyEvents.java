package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.status.Conditions;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes Event on a CachePolicy for each condition transition, so
 * {@code kubectl describe cpol} tells the story. Failing to record never fails a reconciliation.
 */
final class PolicyEvents {

  static final String COMPONENT = "warmgate-operator";
  private static final Logger log = LoggerFactory.getLogger(PolicyEvents.class);

  private final KubernetesClient client;
  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();

  PolicyEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  void transitioned(CachePolicy policy, Conditions.Transition transition) {
    Condition current = transition.current();
    boolean healthy = Condition.TRUE.equals(current.getStatus());
    String message = current.getType() + " is " + current.getStatus() + ": "
        + current.getMessage();
    record(policy, healthy ? "Normal" : "Warning", current.getReason(), message);
  }

  void record(CachePolicy policy, String type, String reason, String message) {
    String now = DateTimeFormatter.ISO_INSTANT.format(
        Instant.now(clock).truncatedTo(ChronoUnit.SECONDS));
    String namespace = policy.getMetadata().getNamespace();
    Event event = new EventBuilder()
        .withNewMetadata()
        .withName(policy.getMetadata().getName() + "."
            + Long.toHexString(System.currentTimeMillis()) + sequence.incrementAndGet())
        .withNamespace(namespace)
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion(policy.getApiVersion())
        .withKind(policy.getKind())
        .withName(policy.getMetadata().getName())
        .withNamespace(namespace)
        .withUid(policy.getMetadata().getUid())
        .withResourceVersion(policy.getMetadata().getResourceVersion())
        .endInvolvedObject()
        .withType(type)
        .withReason(reason)
        .withMessage(message.length() > 1024 ? message.substring(0, 1024) : message)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build();
    try {
      client.v1().events().inNamespace(namespace).resource(event).create();
    } catch (KubernetesClientException e) {
      log.warn("Could not record event {} on CachePolicy {}/{}: {}", reason, namespace,
          policy.getMetadata().getName(), e.getMessage());
    }
  }
}
