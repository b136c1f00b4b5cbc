package io.warmgate.operator.inject;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.warmgate.operator.model.CachePolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the CachePolicy a pod names, from an informer cache kept by every replica (the webhook
 * serves on followers too, while the controller's own informers run on the leader only).
 *
 * <p>A cache miss is confirmed with a GET, so a policy created an instant before its pods is
 * never reported missing because the watch lags.
 */
final class PolicyLookup implements AutoCloseable {

  private final KubernetesClient client;
  private final Set<String> namespaces;
  private final List<SharedIndexInformer<CachePolicy>> informers = new ArrayList<>();

  /**
   * Starts informers for {@code namespaces} (empty: all) and waits for their first list.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the list is refused
   */
  PolicyLookup(KubernetesClient client, Set<String> namespaces) {
    this.client = client;
    this.namespaces = Set.copyOf(namespaces);
    try {
      if (namespaces.isEmpty()) {
        informers.add(client.resources(CachePolicy.class).inAnyNamespace().inform());
      } else {
        for (String namespace : namespaces) {
          informers.add(client.resources(CachePolicy.class).inNamespace(namespace).inform());
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Whether pods of {@code namespace} are the operator's to configure. */
  boolean watches(String namespace) {
    return namespaces.isEmpty() || namespaces.contains(namespace);
  }

  /** The policy {@code namespace/name}, from the cache or else the API server. */
  Optional<CachePolicy> find(String namespace, String name) {
    String key = Cache.namespaceKeyFunc(namespace, name);
    for (SharedIndexInformer<CachePolicy> informer : informers) {
      CachePolicy cached = informer.getStore().getByKey(key);
      if (cached != null) {
        return Optional.of(cached);
      }
    }
    return Optional.ofNullable(
        client.resources(CachePolicy.class).inNamespace(namespace).withName(name).get());
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
  }
}
