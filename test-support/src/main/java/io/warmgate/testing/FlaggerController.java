package io.warmgate.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Flagger's controller as a local process against a cluster, with its CRDs (Canary,
 * MetricTemplate, AlertProvider): both built and taken from the Go module {@code hack/prereqs.sh}
 * pins. It runs with the {@code kubernetes} provider (no service mesh: a Canary is rolled out
 * blue/green, the apex Service selecting the primary pods until the promotion), watches one
 * namespace, and is pointed at a metrics server on a closed loopback port, since the Canaries here
 * have no metric checks: Flagger logs the server unreachable and goes on.
 */
public final class FlaggerController implements AutoCloseable {

  /** API version of the Canary resource. */
  public static final String API_VERSION = "flagger.app/v1beta1";
  /** The Canary resource, for {@code client.genericKubernetesResources(CANARIES)}. */
  public static final ResourceDefinitionContext CANARIES = new ResourceDefinitionContext.Builder()
      .withGroup("flagger.app").withVersion("v1beta1").withKind("Canary").withPlural("canaries")
      .withNamespaced(true).build();

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final ManagedProcess process;

  private FlaggerController(ManagedProcess process) {
    this.process = process;
  }

  /**
   * Installs the CRDs, starts the controller on {@code kubeconfig} watching {@code namespace} and
   * waits until it answers {@code /healthz}.
   *
   * @throws IllegalStateException if the binary or CRDs are missing (run {@code hack/prereqs.sh})
   *     or the controller does not become healthy within 60 s
   */
  public static FlaggerController start(KubernetesClient client, Path kubeconfig, String namespace) {
    installCrds(client);
    int port = FreePorts.next();
    ManagedProcess process = ManagedProcess.start("flagger-" + namespace, List.of(
        ToolBinaries.flagger().toString(),
        "-kubeconfig", kubeconfig.toString(),
        "-mesh-provider", "kubernetes",
        "-namespace", namespace,
        "-port", Integer.toString(port),
        // A loopback port nothing listens on: no Canary here has a metric check.
        "-metrics-server", "http://127.0.0.1:" + FreePorts.next(),
        // The resync of Canaries: at Flagger's default of 10 s a release waits up to that long
        // before its first step; the analysis interval itself is the Canary's.
        "-control-loop-interval", "2s",
        "-enable-config-tracking=false",
        "-log-level", "info",
        "-zap-encoding", "console"), Map.of());
    try {
      process.awaitReady("healthy on port " + port, READY_TIMEOUT, () -> ManagedProcess.healthy(port));
    } catch (RuntimeException e) {
      process.kill();
      throw e;
    }
    return new FlaggerController(process);
  }

  private static void installCrds(KubernetesClient client) {
    Path file = ToolBinaries.flaggerDir().resolve("crd.yaml");
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException("Flagger's CRDs not found at " + file + ": "
          + Prerequisites.FIX);
    }
    List<HasMetadata> crds;
    try (InputStream in = Files.newInputStream(file)) {
      crds = client.load(in).items();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    for (HasMetadata crd : crds) {
      client.resource(crd).forceConflicts().serverSideApply();
    }
    for (HasMetadata crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
          .waitUntilCondition(FlaggerController::established, 60, TimeUnit.SECONDS);
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** Kills the controller. */
  @Override
  public void close() {
    process.kill();
  }
}
