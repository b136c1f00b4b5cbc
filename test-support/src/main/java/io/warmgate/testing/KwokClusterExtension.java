package io.warmgate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;

/**
 * Runs a {@link KwokCluster} (or uses {@code WARMGATE_E2E_KUBECONFIG}) for an end-to-end test
 * class: {@code @RegisterExtension static final KwokClusterExtension cluster = new KwokClusterExtension();}.
 */
public final class KwokClusterExtension extends ServiceExtension {

  private final KwokCluster cluster;

  /** Creates the extension; the cluster starts before the first test. */
  public KwokClusterExtension() {
    this(KwokCluster.create());
  }

  private KwokClusterExtension(KwokCluster cluster) {
    super(cluster);
    this.cluster = cluster;
  }

  /** Returns the cluster this extension runs. */
  public KwokCluster cluster() {
    return cluster;
  }

  /** See {@link KwokCluster#client()}. */
  public KubernetesClient client() {
    return cluster.client();
  }

  /** See {@link KwokCluster#kubeconfigPath()}. */
  public Path kubeconfigPath() {
    return cluster.kubeconfigPath();
  }

  /** See {@link KwokCluster#clusterName()}. */
  public String clusterName() {
    return cluster.clusterName();
  }

  /** See {@link KwokCluster#namespace()}. */
  public String namespace() {
    return cluster.namespace();
  }
}
