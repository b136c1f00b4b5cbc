package io.warmgate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;

/**
 * Runs a {@link KubeApiServer} for a test class:
 * {@code @RegisterExtension static final KubeApiServerExtension kube = new KubeApiServerExtension();}.
 *
 * <p>A {@code static} field gives one server per class, an instance field one per test. This is
 * the project's replacement for kube-api-test's {@code @EnableKubeAPIServer}, which cannot be told
 * where {@code hack/prereqs.sh} put the binaries.
 */
public final class KubeApiServerExtension extends ServiceExtension {

  private final KubeApiServer server;

  /** Creates the extension; the server starts before the first test. */
  public KubeApiServerExtension() {
    this(KubeApiServer.create());
  }

  private KubeApiServerExtension(KubeApiServer server) {
    super(server);
    this.server = server;
  }

  /** Returns the server this extension runs. */
  public KubeApiServer server() {
    return server;
  }

  /** See {@link KubeApiServer#client()}. */
  public KubernetesClient client() {
    return server.client();
  }

  /** See {@link KubeApiServer#kubeconfigYaml()}. */
  public String kubeconfigYaml() {
    return server.kubeconfigYaml();
  }

  /** See {@link KubeApiServer#kubeconfigPath()}. */
  public Path kubeconfigPath() {
    return server.kubeconfigPath();
  }
}
