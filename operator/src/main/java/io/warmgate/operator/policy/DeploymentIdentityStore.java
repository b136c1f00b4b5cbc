package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The Deployment informer's store, keeping of each Deployment only what the operator reads: that
 * it exists, its resource version (the informer's change detection) and its ready replicas (a
 * gauge). The informer sees every Deployment of the watched namespaces, since a policy may name
 * any of them, and most are unrelated: whole, each costs tens of KiB of heap (pod template,
 * managed fields, the last-applied annotation); here, a few hundred bytes.
 *
 * <p>Lookups get a Deployment rebuilt from that, with name, namespace, resource version,
 * generation and {@code status.readyReplicas} only. Rollouts stay whole: the gate reads their
 * steps and status.
 */
final class DeploymentIdentityStore implements ItemStore<Deployment> {

  /** What is kept per Deployment; the key holds its namespace and name. */
  private record Kept(String resourceVersion, long generation, int readyReplicas) {}

  private static final long UNKNOWN_GENERATION = -1;

  private final Map<String, Kept> kept = new ConcurrentHashMap<>();

  @Override
  public String getKey(Deployment deployment) {
    return Cache.metaNamespaceKeyFunc(deployment);
  }

  @Override
  public Deployment put(String key, Deployment deployment) {
    ObjectMeta meta = deployment.getMetadata();
    DeploymentStatus status = deployment.getStatus();
    Kept next = new Kept(meta.getResourceVersion(),
        meta.getGeneration() == null ? UNKNOWN_GENERATION : meta.getGeneration(),
        status == null || status.getReadyReplicas() == null ? 0 : status.getReadyReplicas());
    return rebuild(key, kept.put(key, next));
  }

  @Override
  public Deployment remove(String key) {
    return rebuild(key, kept.remove(key));
  }

  @Override
  public Stream<String> keySet() {
    return kept.keySet().stream();
  }

  @Override
  public Stream<Deployment> values() {
    return kept.entrySet().stream().map(e -> rebuild(e.getKey(), e.getValue()));
  }

  @Override
  public int size() {
    return kept.size();
  }

  @Override
  public Deployment get(String key) {
    return rebuild(key, kept.get(key));
  }

  /** The informer must not take what it reads back for the whole object. */
  @Override
  public boolean isFullState() {
    return false;
  }

  private static Deployment rebuild(String key, Kept kept) {
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
    Deployment deployment = new Deployment();
    deployment.setApiVersion("apps/v1");
    deployment.setKind("Deployment");
    deployment.setMetadata(meta);
    DeploymentStatus status = new DeploymentStatus();
    status.setReadyReplicas(kept.readyReplicas());
    deployment.setStatus(status);
    return deployment;
  }
}
