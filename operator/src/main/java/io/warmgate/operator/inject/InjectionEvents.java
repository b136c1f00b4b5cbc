package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.events.EventRecorder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Records the webhook's Events. A pod being admitted has no uid yet, so the Event is on its
 * controller (the ReplicaSet, shown by {@code kubectl describe rs}) when it has one, else on the
 * pod by name. One Event per namespace and policy name per {@link #QUIET_PERIOD}: a ReplicaSet of
 * fifty pods yields one Event, not fifty. Failing to record never fails an admission, nor does
 * recording delay one: Events are written on a thread of their own, at most
 * {@value #MAX_PENDING} waiting (more are dropped), and at most {@value #MAX_REMEMBERED} names are
 * remembered for the quiet period.
 */
final class InjectionEvents {

  static final String POLICY_NOT_FOUND = "CachePolicyNotFound";
  static final Duration QUIET_PERIOD = Duration.ofMinutes(1);

  /** Policy names remembered for the quiet period at most; a full map forgets the oldest. */
  static final int MAX_REMEMBERED = 4096;
  /** Events waiting to be written; more are dropped. */
  static final int MAX_PENDING = 256;

  private final EventRecorder recorder;
  private final Clock clock;
  private final Map<String, Instant> lastRecorded = new LinkedHashMap<>();
  /** Writes Events off the admission thread: an admission never waits for the API server. */
  private final ThreadPoolExecutor writer = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(MAX_PENDING), r -> {
        Thread t = new Thread(r, "warmgate-webhook-events");
        t.setDaemon(true);
        return t;
      }, new ThreadPoolExecutor.DiscardPolicy());

  InjectionEvents(KubernetesClient client, Clock clock) {
    this.recorder = new EventRecorder(client, clock);
    this.clock = clock;
    writer.allowCoreThreadTimeOut(true);
  }

  /** How many namespace/policy names are remembered for the quiet period. */
  int remembered() {
    synchronized (lastRecorded) {
      return lastRecorded.size();
    }
  }

  /**
   * A Warning that {@code pod} names a CachePolicy that does not exist, recorded in the
   * background; returns at once.
   */
  void policyNotFound(String namespace, Pod pod, String policy) {
    Instant now = Instant.now(clock);
    String key = namespace + "/" + policy;
    synchronized (lastRecorded) {
      Instant last = lastRecorded.get(key);
      if (last != null && last.plus(QUIET_PERIOD).isAfter(now)) {
        return;
      }
      lastRecorded.remove(key);
      lastRecorded.put(key, now);
      // Insertion order is age order: drop what is past its quiet period, then the oldest.
      var oldest = lastRecorded.entrySet().iterator();
      while (oldest.hasNext()) {
        var entry = oldest.next();
        if (lastRecorded.size() <= MAX_REMEMBERED
            && entry.getValue().plus(QUIET_PERIOD).isAfter(now)) {
          break;
        }
        oldest.remove();
      }
    }
    String message = "Pod " + describe(pod) + " is labelled " + PodInjector.POLICY_LABEL + "="
        + policy + " but CachePolicy " + namespace + "/" + policy + " does not exist; the pod "
        + "was admitted without the cache agent's configuration. Create the CachePolicy or fix "
        + "the label, then restart the pods.";
    ObjectReference regarding = regarding(namespace, pod);
    writer.execute(() -> recorder.record(regarding, true, POLICY_NOT_FOUND, message));
  }

  /** The pod's name, or its generateName followed by '*' while the API server has not named it. */
  static String describe(Pod pod) {
    String name = pod.getMetadata().getName();
    if (name != null && !name.isEmpty()) {
      return name;
    }
    String prefix = pod.getMetadata().getGenerateName();
    return prefix == null ? "<unnamed>" : prefix + "*";
  }

  private static ObjectReference regarding(String namespace, Pod pod) {
    if (pod.getMetadata().getOwnerReferences() != null) {
      for (OwnerReference owner : pod.getMetadata().getOwnerReferences()) {
        if (Boolean.TRUE.equals(owner.getController())) {
          return new ObjectReferenceBuilder().withApiVersion(owner.getApiVersion())
              .withKind(owner.getKind()).withName(owner.getName()).withUid(owner.getUid())
              .withNamespace(namespace).build();
        }
      }
    }
    String name = pod.getMetadata().getName();
    if (name == null || name.isEmpty()) {
      name = pod.getMetadata().getGenerateName() == null ? "pod"
          : pod.getMetadata().getGenerateName().replaceAll("-$", "");
    }
    return new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod").withName(name)
        .withNamespace(namespace).build();
  }
}
