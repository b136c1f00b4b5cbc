package io.warmgate.testing;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Kubernetes cluster for end-to-end tests: kwok ({@code kwokctl --runtime binary}) runs
 * etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok-controller from the
 * binaries of {@code hack/prereqs.sh}, with fake nodes on which pods become Ready without running
 * anything, by the pod stages of {@code hack/kwok/pod-stages.yaml} (Ready only once every readiness
 * gate's condition is True, as the kubelet rules); the Argo Rollouts CRDs are installed and its
 * controller runs as a local process.
 * kube-apiserver authorizes with Node and RBAC, as a real cluster does.
 *
 * <p>If {@code WARMGATE_E2E_KUBECONFIG} names a kubeconfig, that cluster is used instead (Argo
 * Rollouts must already run there) and nothing but the test {@link #namespace()} is created and
 * later deleted. Otherwise {@link #close()} kills the controller and deletes the cluster, as the
 * JVM's exit does at the latest; component logs are kept under
 * {@code target/test-processes/kwok-<name>-logs/}. Nothing is ever downloaded. Not thread-safe.
 */
public final class KwokCluster implements ManagedService {

  /** Environment variable naming the kubeconfig of an existing cluster to test against. */
  public static final String EXISTING_KUBECONFIG_ENV = "WARMGATE_E2E_KUBECONFIG";
  /** Name of the fake node pods are scheduled to; it carries no taint. */
  public static final String NODE_NAME = "kwok-node-0";
  /** The pod lifecycle kwok plays, in place of its own (which ignores readiness gates). */
  static final String POD_STAGES = "hack/kwok/pod-stages.yaml";

  private static final Logger LOG = LoggerFactory.getLogger(KwokCluster.class);
  private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration CONTROLLER_TIMEOUT = Duration.ofSeconds(60);

  private final String name;
  private final Path existingKubeconfig;
  private final Path workDir;
  private Path kubeconfigPath;
  private KubernetesClient client;
  private ManagedProcess controller;
  private Cleanup.Registration clusterCleanup;
  private boolean started;

  private KwokCluster(Path existingKubeconfig) {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    this.name = "wg-" + suffix;
    this.existingKubeconfig = existingKubeconfig;
    this.workDir = WarmgatePaths.processLogDir().resolve("kwok");
  }

  /**
   * Returns a cluster that is not started yet: the one {@code WARMGATE_E2E_KUBECONFIG} names if
   * set, else a new kwok cluster.
   *
   * @throws IllegalStateException if {@code WARMGATE_E2E_KUBECONFIG} names a missing file
   */
  public static KwokCluster create() {
    String existing = System.getenv(EXISTING_KUBECONFIG_ENV);
    if (existing == null || existing.isBlank()) {
      return new KwokCluster(null);
    }
    Path path = Path.of(existing);
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(EXISTING_KUBECONFIG_ENV + "=" + existing
          + " is not a file: point it at a kubeconfig or unset it to run a kwok cluster");
    }
    return new KwokCluster(path);
  }

  /**
   * Creates the cluster (or connects to the existing one), the fake node, the Argo Rollouts CRDs and
   * controller, and the test namespace. Does nothing if started.
   *
   * @throws IllegalStateException if a binary is missing (run {@code hack/prereqs.sh}) or a step
   *     fails; the message holds the tail of the failing process's log
   */
  @Override
  public void start() {
    if (isRunning()) {
      return;
    }
    close();
    long startNanos = System.nanoTime();
    try {
      if (existingKubeconfig != null) {
        kubeconfigPath = existingKubeconfig;
        client = clientFor(kubeconfigPath);
      } else {
        createKwokCluster();
        client = clientFor(kubeconfigPath);
        createFakeNode();
        ArgoRollouts.installCrds(client);
        startRolloutsController();
      }
      client.resource(new NamespaceBuilder().withNewMetadata().withName(namespace())
          .addToLabels("app.kubernetes.io/part-of", "warmgate-e2e").endMetadata().build())
          .serverSideApply();
      started = true;
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    LOG.info("{} ready in {} ms (kubeconfig {}, namespace {})", this,
        (System.nanoTime() - startNanos) / 1_000_000, kubeconfigPath, namespace());
  }

  private void createKwokCluster() {
    try {
      Files.createDirectories(workDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + workDir, e);
    }
    Path kwokctl = ToolBinaries.kwok("kwokctl");
    List<String> command = List.of(kwokctl.toString(), "create", "cluster",
        "--name", name,
        "--runtime", "binary",
        "--kubeconfig", ownKubeconfig().toString(),
        "--kube-apiserver-binary", ToolBinaries.kubernetes("kube-apiserver").toString(),
        "--kube-controller-manager-binary", ToolBinaries.kubernetes("kube-controller-manager").toString(),
        "--kube-scheduler-binary", ToolBinaries.kubernetes("kube-scheduler").toString(),
        "--etcd-binary", ToolBinaries.etcd().toString(),
        "--kwok-controller-binary", ToolBinaries.kwok("kwok").toString(),
        "--config", WarmgatePaths.repoDir().resolve(POD_STAGES).toString(),
        "--config", writePorts().toString(),
        // kwokctl's default for a secure port, stated so the E2E suite's operator, acting as the
        // chart's ServiceAccount, is held to the chart's RBAC: --authorization-mode=Node,RBAC.
        "--kube-authorization=true",
        "--wait", "120s");
    clusterCleanup = Cleanup.atExit("kwok cluster " + name, this::deleteKwokCluster);
    ManagedProcess create = ManagedProcess.start("kwokctl-create-" + name, command,
        Map.of("KWOK_WORKDIR", workDir.toString()));
    int exit = create.awaitExit(CREATE_TIMEOUT);
    if (exit != 0) {
      throw new IllegalStateException("kwokctl create cluster " + name + " failed with exit code "
          + exit + "\n" + create.logTails());
    }
    kubeconfigPath = clusterDir().resolve("kubeconfig.yaml");
  }

  private void createFakeNode() {
    Map<String, Quantity> resources = Map.of(
        "cpu", new Quantity("64"), "memory", new Quantity("256Gi"), "pods", new Quantity("500"));
    Node node = new NodeBuilder()
        .withNewMetadata().withName(NODE_NAME)
        .addToAnnotations("kwok.x-k8s.io/node", "fake")
        .addToLabels("type", "kwok")
        .addToLabels("kubernetes.io/hostname", NODE_NAME)
        .addToLabels("kubernetes.io/os", "linux")
        .endMetadata()
        .withNewStatus().withCapacity(resources).withAllocatable(resources).endStatus()
        .build();
    client.resource(node).create();
    client.nodes().withName(NODE_NAME).waitUntilCondition(n -> n != null && n.getStatus() != null
        && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())),
        60, TimeUnit.SECONDS);
  }

  private void startRolloutsController() {
    client.resource(new NamespaceBuilder().withNewMetadata().withName("argo-rollouts").endMetadata()
        .build()).serverSideApply();
    int healthz = FreePorts.next();
    int metrics = FreePorts.next();
    controller = ManagedProcess.start("rollouts-controller-" + name, List.of(
        ToolBinaries.rolloutsController().toString(),
        "--kubeconfig", kubeconfigPath.toString(),
        "--namespace", "argo-rollouts",
        "--healthzPort", Integer.toString(healthz),
        "--metricsPort", Integer.toString(metrics),
        "--leader-elect=false",
        "--loglevel", "info"), Map.of());
    controller.awaitReady("healthy on port " + healthz, CONTROLLER_TIMEOUT, () -> ManagedProcess.healthy(healthz));
  }

  /** Kills the controller and deletes the cluster (or only the test namespace of an existing one). */
  @Override
  public void close() {
    if (controller != null) {
      controller.kill();
      controller = null;
    }
    if (client != null) {
      if (existingKubeconfig != null && started) {
        client.namespaces().withName(namespace()).delete();
      }
      client.close();
      client = null;
    }
    if (clusterCleanup != null) {
      deleteKwokCluster();
      clusterCleanup.close();
      clusterCleanup = null;
    }
    started = false;
  }

  private void deleteKwokCluster() {
    Path logs = clusterDir().resolve("logs");
    if (Files.isDirectory(logs)) {
      Path keep = WarmgatePaths.processLogDir().resolve("kwok-" + name + "-logs");
      try (Stream<Path> files = Files.list(logs)) {
        Files.createDirectories(keep);
        for (Path file : (Iterable<Path>) files::iterator) {
          Files.copy(file, keep.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        LOG.warn("cannot keep the logs of kwok cluster {}: {}", name, e.toString());
      }
    }
    try {
      ManagedProcess delete = ManagedProcess.start("kwokctl-delete-" + name, List.of(
          ToolBinaries.kwok("kwokctl").toString(), "delete", "cluster", "--name", name,
          "--kubeconfig", ownKubeconfig().toString()),
          Map.of("KWOK_WORKDIR", workDir.toString()));
      int exit = delete.awaitExit(Duration.ofSeconds(60));
      if (exit != 0) {
        LOG.warn("kwokctl delete cluster {} exited with {}\n{}", name, exit, delete.logTails());
      }
    } catch (RuntimeException e) {
      LOG.warn("kwokctl delete cluster {} failed: {}", name, e.toString());
    }
    killRecordedComponents();
  }

  /** Kills components whose pid files survived {@code kwokctl delete} (it failed or never ran). */
  private void killRecordedComponents() {
    Path pids = clusterDir().resolve("pids");
    if (!Files.isDirectory(pids)) {
      return;
    }
    try (Stream<Path> files = Files.list(pids)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        long pid = Long.parseLong(Files.readString(file).trim());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    } catch (IOException | NumberFormatException e) {
      LOG.warn("cannot read the pid files of kwok cluster {}: {}", name, e.toString());
    }
  }

  /**
   * Writes the ports of this cluster's components to a kwokctl configuration and returns its path.
   * kwokctl's own choice counts down from 32767 and takes the first port free at that moment, so
   * two clusters created at once (E2E classes in parallel forks) chose the same ports and one
   * failed ("address already in use"); the kernel's ephemeral ports do not collide that way.
   */
  private Path writePorts() {
    String yaml = "apiVersion: config.kwok.x-k8s.io/v1alpha1\n"
        + "kind: KwokctlConfiguration\n"
        + "options:\n"
        + "  kubeApiserverPort: " + FreePorts.next() + "\n"
        + "  etcdPort: " + FreePorts.next() + "\n"
        + "  etcdPeerPort: " + FreePorts.next() + "\n"
        + "  kubeControllerManagerPort: " + FreePorts.next() + "\n"
        + "  kubeSchedulerPort: " + FreePorts.next() + "\n"
        + "  kwokControllerPort: " + FreePorts.next() + "\n";
    Path path = workDir.resolve("ports-" + name + ".yaml");
    try {
      Files.writeString(path, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + path, e);
    }
    return path;
  }

  /** The kubeconfig kwokctl adds this cluster's context to: one per cluster, never shared. */
  private Path ownKubeconfig() {
    return workDir.resolve("kubeconfig-" + name);
  }

  private Path clusterDir() {
    return workDir.resolve("clusters").resolve(name);
  }

  private static KubernetesClient clientFor(Path kubeconfig) {
    try {
      return new KubernetesClientBuilder()
          .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig, e);
    }
  }

  @Override
  public boolean isRunning() {
    return started && (controller == null || controller.isAlive());
  }

  /** Returns whether this runs against {@code WARMGATE_E2E_KUBECONFIG} rather than a kwok cluster. */
  public boolean isExisting() {
    return existingKubeconfig != null;
  }

  /** Returns the kwok cluster name ({@code wg-} and 8 random hex digits). */
  public String clusterName() {
    return name;
  }

  /** Returns the namespace created for the test: {@code e2e-} and the cluster name's suffix. */
  public String namespace() {
    return "e2e-" + name.substring(3);
  }

  /**
   * Returns the cluster's kubeconfig file (cluster-admin).
   *
   * @throws IllegalStateException if the cluster is not started
   */
  public Path kubeconfigPath() {
    requireStarted();
    return kubeconfigPath;
  }

  /**
   * Returns a cluster-admin client; closed by {@link #close()}.
   *
   * @throws IllegalStateException if the cluster is not started
   */
  public KubernetesClient client() {
    requireStarted();
    return client;
  }

  private void requireStarted() {
    if (!started) {
      throw new IllegalStateException("the cluster is not started: call start() first");
    }
  }

  @Override
  public String toString() {
    return existingKubeconfig != null
        ? "KwokCluster[existing " + existingKubeconfig + "]"
        : "KwokCluster[" + name + (client == null ? "" : " " + client.getMasterUrl()) + "]";
  }
}
