package io.warmgate.operator.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the operator's Kubernetes Events (core/v1, shown by {@code kubectl describe}). Each Event
 * gets a unique name; messages are cut to 1024 characters. Failing to record is logged and never
 * thrown: an Event is never worth failing a reconciliation or an admission. Thread-safe.
 */
public final class EventRecorder {

  /** The {@code source.component} and {@code reportingComponent} of every Event. */
  public static final String COMPONENT = "warmgate-operator";

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final int MAX_MESSAGE = 1024;

  private final KubernetesClient client;
  private final Clock clock;
  private final AtomicLong sequence = new AtomicLong();

  public EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Records a {@code Normal} or {@code Warning} Event about {@code involved}, in its namespace. */
  public void record(ObjectReference involved, boolean warning, String reason, String message) {
    Instant now = Instant.now(clock);
    String timestamp = DateTimeFormatter.ISO_INSTANT.format(now.truncatedTo(ChronoUnit.SECONDS));
    Event event = new EventBuilder()
        .withNewMetadata()
        .withName(involved.getName() + "." + Long.toHexString(now.toEpochMilli()) + sequence.incrementAndGet())
        .withNamespace(involved.getNamespace())
        .endMetadata()
        .withInvolvedObject(involved)
        .withType(warning ? "Warning" : "Normal")
        .withReason(reason)
        .withMessage(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message)
        .withFirstTimestamp(timestamp)
        .withLastTimestamp(timestamp)
        .withCount(1)
        .withNewSource().withComponent(COMPONENT).endSource()
        .withReportingComponent(COMPONENT)
        .build();
    try {
      client.v1().events().inNamespace(involved.getNamespace()).resource(event).create();
    } catch (KubernetesClientException e) {
      log.warn("Could not record event {} on {} {}/{}: {}", reason, involved.getKind(),
          involved.getNamespace(), involved.getName(), e.getMessage());
    }
  }
}
