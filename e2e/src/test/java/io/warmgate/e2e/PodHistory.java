package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the test saw of each pod of one app, from a watch: when it appeared, its revision, every
 * {@code warmgate.io/warm} status it carried and when it first was Ready. Times are this JVM's, so
 * they order events across pods without the whole seconds of Kubernetes timestamps.
 */
final class PodHistory implements AutoCloseable {

  static final String WARM = "warmgate.io/warm";

  /** One pod as seen so far. */
  static final class Seen {
    final String name;
    final String revision;
    final Instant added;
    /** Each distinct {@code status/reason} of the pod's warm condition, in the order seen. */
    final List<String> warm = new ArrayList<>();
    Instant ready;

    Seen(String name, String revision, Instant added) {
      this.name = name;
      this.revision = revision;
      this.added = added;
    }

    private Seen copy() {
      Seen copy = new Seen(name, revision, added);
      copy.warm.addAll(warm);
      copy.ready = ready;
      return copy;
    }

    boolean everWarmFalse() {
      return warm.stream().anyMatch(w -> w.startsWith("False/"));
    }

    @Override
    public String toString() {
      return name + "(" + revision + ", warm " + warm + ", ready " + (ready != null) + ")";
    }
  }

  private final Map<String, Seen> pods = new LinkedHashMap<>();
  private final SharedIndexInformer<Pod> informer;
  private final String revisionLabel;

  PodHistory(KubernetesClient client, String namespace, String app, String revisionLabel) {
    this.revisionLabel = revisionLabel;
    informer = client.pods().inNamespace(namespace).withLabel("app", app)
        .inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            record(pod);
          }

          @Override
          public void onUpdate(Pod old, Pod pod) {
            record(pod);
          }

          @Override
          public void onDelete(Pod pod, boolean unknownFinalState) {}
        });
  }

  private synchronized void record(Pod pod) {
    Instant now = Instant.now();
    String name = pod.getMetadata().getName();
    // By uid: a StatefulSet's new pod has the name of the one it replaces.
    Seen seen = pods.computeIfAbsent(pod.getMetadata().getUid(), uid -> new Seen(name,
        pod.getMetadata().getLabels().getOrDefault(revisionLabel, ""), now));
    warm(pod).map(c -> c.getStatus() + "/" + c.getReason())
        .filter(w -> seen.warm.isEmpty() || !seen.warm.get(seen.warm.size() - 1).equals(w))
        .ifPresent(seen.warm::add);
    if (seen.ready == null && Readiness.isPodReady(pod)) {
      seen.ready = now;
    }
  }

  static Optional<PodCondition> warm(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getConditions() == null ? Optional.empty()
        : pod.getStatus().getConditions().stream().filter(c -> WARM.equals(c.getType())).findFirst();
  }

  /** A snapshot of the pods of {@code revision} seen so far, in the order they appeared. */
  synchronized List<Seen> ofRevision(String revision) {
    return pods.values().stream().filter(p -> p.revision.equals(revision)).map(Seen::copy).toList();
  }

  @Override
  public void close() {
    informer.close();
  }
}
