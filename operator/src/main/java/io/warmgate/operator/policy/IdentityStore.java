package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

/**
 * A workload informer's store (Deployments, StatefulSets), keeping of each workload only what the
 * operator reads: that it exists, its resource version (the informer's change detection) and its
 * ready replicas (a gauge). The informer sees every workload of its kind in the watched
 * namespaces, since a policy may name any of them, and most are unrelated: whole, each costs tens
 * of KiB of heap (pod template, managed fields, the last-applied annotation); here, a few hundred
 * bytes.
 *
 * <p>Lookups get a workload rebuilt from that, with name, namespace, resource version,
 * generation and {@code status.readyReplicas} only. Rollouts stay whole: the gate reads their
 * steps and status.
 *
 * @param <T> the workload type
 */
final class IdentityStore<T extends HasMetadata> implements ItemStore<T> {

  /** What is kept per workload; the key holds its namespace and name. */
  private record Kept(String resourceVersion, long generation, int readyReplicas) {}

  private static final long UNKNOWN_GENERATION = -1;

  private final Map<String, Kept> kept = new ConcurrentHashMap<>();
  private final ToIntFunction<T> readyReplicas;
  private final BiFunction<ObjectMeta, Integer, T> rebuild;

  private IdentityStore(ToIntFunction<T> readyReplicas,
      BiFunction<ObjectMeta, Integer, T> rebuild) {
    this.readyReplicas = readyReplicas;
    this.rebuild = rebuild;
  }

  /** A store of Deployments. */
  static IdentityStore<Deployment> deployments() {
    return new IdentityStore<>(d -> d.getStatus() == null
        || d.getStatus().getReadyReplicas() == null ? 0 : d.getStatus().getReadyReplicas(),
        (meta, ready) -> {
          Deployment deployment = new Deployment();
          deployment.setApiVersion("apps/v1");
          deployment.setKind("Deployment");
          deployment.setMetadata(meta);
          DeploymentStatus status = new DeploymentStatus();
          status.setReadyReplicas(ready);
          deployment.setStatus(status);
          return deployment;
        });
  }

  /** A store of StatefulSets. */
  static IdentityStore<StatefulSet> statefulSets() {
    return new IdentityStore<>(s -> s.getStatus() == null
        || s.getStatus().getReadyReplicas() == null ? 0 : s.getStatus().getReadyReplicas(),
        (meta, ready) -> {
          StatefulSet statefulSet = new StatefulSet();
          statefulSet.setApiVersion("apps/v1");
          statefulSet.setKind("StatefulSet");
          statefulSet.setMetadata(meta);
          StatefulSetStatus status = new StatefulSetStatus();
          status.setReadyReplicas(ready);
          statefulSet.setStatus(status);
          return statefulSet;
        });
  }

  @Override
  public String getKey(T workload) {
    return Cache.metaNamespaceKeyFunc(workload);
  }

  @Override
  public T put(String key, T workload) {
    ObjectMeta meta = workload.getMetadata();
    Kept next = new Kept(meta.getResourceVersion(),
        meta.getGeneration() == null ? UNKNOWN_GENERATION : meta.getGeneration(),
        readyReplicas.applyAsInt(workload));
    return rebuild(key, kept.put(key, next));
  }

  @Override
  public T remove(String key) {
    return rebuild(key, kept.remove(key));
  }

  @Override
  public Stream<String> keySet() {
    return kept.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return kept.entrySet().stream().map(e -> rebuild(e.getKey(), e.getValue()));
  }

  @Override
  public int size() {
    return kept.size();
  }

  @Override
  public T get(String key) {
    return rebuild(key, kept.get(key));
  }

  /**
   * Full state as the informer's listeners go: they see what the operator keeps. While the
   * informer lists, it then delivers each add from this store once the list is done (an
   * identity) instead of queueing every listed workload whole for its listeners; at start, a
   * cluster's 20,000 Deployments queued whole outgrew the chart's heap.
   */
  @Override
  public boolean isFullState() {
    return true;
  }

  private T rebuild(String key, Kept kept) {
    if (kept == null) {
      return null;
    }
    ObjectMeta meta = new ObjectMeta();
    int slash = key.indexOf('/');
    if (slash >= 0) {
      meta.setNamespace(key.substring(0, slash));
    }
    meta.setName(key.substring(slash + 1));
    meta.setResourceVersion(kept.resourceVersion());
    if (kept.generation() != UNKNOWN_GENERATION) {
      meta.setGeneration(kept.generation());
    }
    return rebuild.apply(meta, kept.readyReplicas());
  }
}
