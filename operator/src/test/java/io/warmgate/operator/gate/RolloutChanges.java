package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.warmgate.testing.ArgoRollouts;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.DoubleSupplier;

/**
 * Records every change of one Rollout through a watch: each release (status.pauseConditions going
 * from non-empty to empty or absent) with the coverage in Valkey at that moment, each change at
 * all, and whether {@code status.abort} was ever set. Thread-safe.
 */
final class RolloutChanges implements Watcher<GenericKubernetesResource>, AutoCloseable {

  /** A release seen at {@code at}, with the canary's coverage read right then. */
  record Release(Instant at, String resourceVersion, double coverage) {}

  /** Any event of the watch. */
  record Change(Instant at, Action action, String resourceVersion) {}

  private final DoubleSupplier coverage;
  private final List<Release> releases = new CopyOnWriteArrayList<>();
  private final List<Change> changes = new CopyOnWriteArrayList<>();
  private volatile boolean paused;
  private volatile boolean aborted;
  private volatile WatcherException closedBy;
  private Watch watch;

  private RolloutChanges(DoubleSupplier coverage) {
    this.coverage = coverage;
  }

  /** Watches Rollout {@code namespace/name}, which need not exist yet. */
  static RolloutChanges watch(KubernetesClient client, String namespace, String name,
      DoubleSupplier coverage) {
    RolloutChanges changes = new RolloutChanges(coverage);
    // By its resource definition, not apiVersion and kind: those need the client's discovery,
    // which may not know a CRD installed a moment ago.
    changes.watch = client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(namespace)
        .withName(name).watch(changes);
    return changes;
  }

  @Override
  public void eventReceived(Action action, GenericKubernetesResource rollout) {
    Instant now = Instant.now();
    String version = rollout.getMetadata().getResourceVersion();
    changes.add(new Change(now, action, version));
    boolean pausedNow = FakeArgo.paused(rollout);
    if (paused && !pausedNow) {
      releases.add(new Release(now, version, coverage.getAsDouble()));
    }
    paused = pausedNow;
    aborted |= Boolean.TRUE.equals(FakeArgo.statusOf(rollout).get("abort"));
  }

  @Override
  public void onClose(WatcherException cause) {
    closedBy = cause;
  }

  List<Release> releases() {
    return List.copyOf(releases);
  }

  /** The changes seen after {@code since}. */
  List<Change> changesAfter(Instant since) {
    return changes.stream().filter(c -> c.at().isAfter(since)).toList();
  }

  boolean aborted() {
    return aborted;
  }

  /** Whether the watch ended on its own, so that changes may have been missed. */
  boolean broken() {
    return closedBy != null;
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
  }
}
