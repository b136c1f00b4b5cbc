package io.warmgate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a {@link KubeApiServer} for a test class:
 * {@code @RegisterExtension static final KubeApiServerExtension kube = new KubeApiServerExtension();}.
 *
 * <p>A {@code static} field gives one server per class, an instance field one per test. This is
 * the project's replacement for kube-api-test's {@code @EnableKubeAPIServer}, which cannot be told
 * where {@code hack/prereqs.sh} put the binaries.
 */
public final class KubeApiServerExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final KubeApiServer server = KubeApiServer.create();
  private final ExtensionLifecycle lifecycle = new ExtensionLifecycle(server);

  /** Creates the extension; the server starts before the first test. */
  public KubeApiServerExtension() {
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
