package io.warmgate.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfig;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real kube-apiserver with its etcd, run by fabric8 kube-api-test in offline mode from the
 * binaries {@code hack/prereqs.sh} puts under {@code <cache>/kube-api-test/k8s/1.34.4-linux-amd64/}.
 *
 * <p>There is no kubelet, controller-manager or scheduler: objects are stored and validated (CRDs,
 * OpenAPI, CEL, admission webhooks), nothing runs. Use {@link #shared()} where a client is needed
 * while test fields are initialised (e.g. for JOSDK's {@code LocallyRunOperatorExtension}), else
 * {@link KubeApiServerExtension}. Both processes are killed by {@link #close()} or at JVM exit;
 * kube-api-test logs their output at DEBUG under the logger
 * {@code io.fabric8.kubeapitest.process}. Thread-safe.
 */
public final class KubeApiServer implements ManagedService {

  /** The Kubernetes version of the binaries. */
  public static final String KUBERNETES_VERSION = ToolBinaries.KUBERNETES_VERSION;

  private static final Logger LOG = LoggerFactory.getLogger(KubeApiServer.class);
  private static final Pattern SERVER_PORT = Pattern.compile("server:\\s*https://[^:\\s]+:(\\d+)");
  private static KubeApiServer shared;

  private KubeAPIServer server;
  private volatile Set<ProcessHandle> processes = Set.of();
  private Cleanup.Registration cleanup;
  private KubernetesClient client;
  private String kubeconfigYaml;
  private Path kubeconfigPath;

  private KubeApiServer() {
  }

  /** Returns a server that is not started yet. */
  public static KubeApiServer create() {
    return new KubeApiServer();
  }

  /**
   * Returns the JVM-wide server, starting it on the first call; it runs until the JVM exits, so
   * test classes share it (and must not assume an empty cluster: use their own namespaces).
   *
   * @throws IllegalStateException if the binaries are missing (run {@code hack/prereqs.sh}) or the
   *     server does not start
   */
  public static synchronized KubeApiServer shared() {
    if (shared == null || !shared.isRunning()) {
      KubeApiServer server = new KubeApiServer();
      server.start();
      shared = server;
    }
    return shared;
  }

  /**
   * Returns the kube-api-test configuration every warmgate test uses: offline, binaries and
   * certificates in {@code <cache>/kube-api-test}, version {@value #KUBERNETES_VERSION}.
   *
   * <p>For code that drives {@link KubeAPIServer} itself; {@code @EnableKubeAPIServer} cannot be
   * pointed at that directory, so use {@link KubeApiServerExtension} instead of the annotation.
   *
   * @throws IllegalStateException if the binaries are missing (run {@code hack/prereqs.sh})
   */
  public static KubeAPIServerConfig kubeApiTestConfig() {
    Path dir = ToolBinaries.kubeApiTestDir();
    Path binaries = dir.resolve("k8s").resolve(KUBERNETES_VERSION + "-linux-amd64");
    for (String name : List.of("kube-apiserver", "etcd", "kubectl")) {
      Prerequisites.executable(binaries.resolve(name), name + " for kube-api-test");
    }
    return KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withTestDir(dir.toString())
        .withApiServerVersion(KUBERNETES_VERSION)
        .withOfflineMode(true)
        .withStartupTimeout(120_000)
        .build();
  }

  /**
   * Starts etcd and kube-apiserver and returns once the {@code default} namespace exists. Does
   * nothing if running.
   *
   * @throws IllegalStateException if the binaries are missing (run {@code hack/prereqs.sh}) or the
   *     server does not become ready within 120 s
   */
  @Override
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    close();
    long startNanos = System.nanoTime();
    KubeAPIServerConfig config = kubeApiTestConfig();
    String binaryDir = ToolBinaries.kubeApiTestDir().toString();
    Set<ProcessHandle> before = ProcessHandle.current().children().collect(Collectors.toSet());
    KubeAPIServer started = new KubeAPIServer(config);
    cleanup = Cleanup.atExit("kube-apiserver", this::killProcesses);
    try {
      started.start();
    } catch (RuntimeException e) {
      processes = newChildren(before);
      killProcesses();
      throw new IllegalStateException("kube-apiserver " + KUBERNETES_VERSION + " from " + binaryDir
          + " did not start: " + e.getMessage() + " (set logger io.fabric8.kubeapitest to DEBUG"
          + " for its output; run hack/prereqs.sh if binaries are missing)", e);
    }
    processes = newChildren(before);
    server = started;
    kubeconfigYaml = started.getKubeConfigYaml();
    Matcher port = SERVER_PORT.matcher(kubeconfigYaml);
    String name = "kube-apiserver-" + (port.find() ? port.group(1) : ProcessHandle.current().pid());
    kubeconfigPath = WarmgatePaths.processLogDir().resolve(name + ".kubeconfig");
    try {
      Files.writeString(kubeconfigPath, kubeconfigYaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + kubeconfigPath, e);
    }
    client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigYaml)).build();
    LOG.info("kube-apiserver {} ready in {} ms at {} (kubeconfig {})", KUBERNETES_VERSION,
        (System.nanoTime() - startNanos) / 1_000_000, client.getMasterUrl(), kubeconfigPath);
  }

  /** Returns the processes kube-api-test started: etcd and kube-apiserver are children of this JVM. */
  private static Set<ProcessHandle> newChildren(Set<ProcessHandle> before) {
    return ProcessHandle.current().children()
        .filter(p -> !before.contains(p))
        .collect(Collectors.toSet());
  }

  /** Stops kube-apiserver and etcd (SIGKILL) and deletes etcd's data. Idempotent. */
  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (server != null) {
      try {
        server.stop();
      } catch (RuntimeException e) {
        LOG.debug("kube-api-test stop after an unexpected exit of its processes", e);
      }
      server = null;
    }
    killProcesses();
  }

  private void killProcesses() {
    processes.forEach(ProcessHandle::destroyForcibly);
    processes.forEach(p -> p.onExit().join());
    processes = Set.of();
    if (cleanup != null) {
      cleanup.close();
      cleanup = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return server != null && !processes.isEmpty() && processes.stream().allMatch(ProcessHandle::isAlive);
  }

  /**
   * Returns a client with cluster-admin rights; closed by {@link #close()}.
   *
   * @throws IllegalStateException if the server is not started
   */
  public synchronized KubernetesClient client() {
    requireStarted();
    return client;
  }

  /** Returns the kubeconfig (client-certificate authentication) as YAML. */
  public synchronized String kubeconfigYaml() {
    requireStarted();
    return kubeconfigYaml;
  }

  /** Returns a file holding {@link #kubeconfigYaml()}, for processes such as kubectl or an operator. */
  public synchronized Path kubeconfigPath() {
    requireStarted();
    return kubeconfigPath;
  }

  private void requireStarted() {
    if (server == null) {
      throw new IllegalStateException("kube-apiserver is not started: call start() first");
    }
  }

  @Override
  public String toString() {
    return "KubeApiServer[" + (client == null ? "not started" : client.getMasterUrl()) + "]";
  }
}
