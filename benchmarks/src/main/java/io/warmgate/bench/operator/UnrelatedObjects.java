package io.warmgate.bench.operator;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Deployments and Secrets that no CachePolicy is about, spread over namespaces of their own: the
 * rest of a cluster the operator shares. No controller runs, so the Deployments stay as created.
 */
final class UnrelatedObjects {

  /** Parallel creates: enough to keep the API server busy, few enough not to starve it. */
  private static final int WRITERS = 8;

  private final KubernetesClient client;
  private final BenchCluster cluster;

  UnrelatedObjects(BenchCluster cluster) {
    this.cluster = cluster;
    this.client = cluster.client();
  }

  /** Creates the namespaces, Deployments and Secrets of {@code fleet}; returns when all exist. */
  void create(FleetSettings fleet) {
    for (int n = 0; n < fleet.namespaces(); n++) {
      cluster.createNamespace(namespace(n));
    }
    // Random bytes, as keys and certificates are: nothing for etcd or a cache to compress.
    byte[] payload = new byte[fleet.secretBytes()];
    new SplittableRandom(34).nextBytes(payload);
    String data = Base64.getEncoder().encodeToString(payload);
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        done.add(writers.submit(() -> {
          for (int i = writer; i < fleet.deployments(); i += WRITERS) {
            deployment(namespace(i % fleet.namespaces()), "unrelated-" + i);
          }
          for (int i = writer; i < fleet.secrets(); i += WRITERS) {
            secret(namespace(i % fleet.namespaces()), "unrelated-" + i, data);
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("creating the unrelated objects failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating the unrelated objects", e);
    } finally {
      writers.shutdownNow();
    }
  }

  private static String namespace(int n) {
    return "unrelated-" + n;
  }

  /** A Deployment as teams write them: labels, resources, probes, env. */
  private void deployment(String namespace, String name) {
    client.apps().deployments().inNamespace(namespace).resource(new DeploymentBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace)
            .addToLabels("app.kubernetes.io/name", name)
            .addToLabels("app.kubernetes.io/part-of", "shop").endMetadata()
        .withNewSpec().withReplicas(3)
            .withNewSelector().addToMatchLabels("app.kubernetes.io/name", name).endSelector()
            .withNewTemplate()
                .withNewMetadata().addToLabels("app.kubernetes.io/name", name).endMetadata()
                .withNewSpec().addNewContainer().withName("app")
                    .withImage("registry.invalid/shop/" + name + ":1.42.0")
                    .addNewPort().withContainerPort(8080).withName("http").endPort()
                    .addNewEnv().withName("JAVA_TOOL_OPTIONS")
                        .withValue("-XX:MaxRAMPercentage=75").endEnv()
                    .withNewReadinessProbe().withNewHttpGet().withPath("/ready")
                        .withNewPort("http").endHttpGet().endReadinessProbe()
                    .withNewResources().addToRequests("cpu", new Quantity("250m"))
                        .addToLimits("memory", new Quantity("512Mi")).endResources()
                .endContainer().endSpec()
            .endTemplate()
        .endSpec().build()).create();
  }

  private void secret(String namespace, String name, String data) {
    client.secrets().inNamespace(namespace).resource(new SecretBuilder()
        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
        .addToData("payload", data).build()).create();
  }
}
