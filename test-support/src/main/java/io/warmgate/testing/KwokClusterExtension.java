package io.warmgate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a {@link KwokCluster} (or uses {@code WARMGATE_E2E_KUBECONFIG}) for an end-to-end test
 * class: {@code @RegisterExtension static final KwokClusterExtension cluster = new KwokClusterExtension();}.
 */
public final class KwokClusterExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final KwokCluster cluster = KwokCluster.create();
  private final ExtensionLifecycle lifecycle = new ExtensionLifecycle(cluster);

  /** Creates the extension; the cluster starts before the first test. */
  public KwokClusterExtension() {
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

  @Override
  public void beforeAll(ExtensionContext context) {
    lifecycle.beforeAll();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    lifecycle.beforeEach();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    lifecycle.afterEach();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    lifecycle.afterAll();
  }
}
