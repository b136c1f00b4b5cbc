package io.warmgate.localpods;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the kubelet for a cluster without a container runtime (kwok): every pod matching a label
 * selector that is scheduled and {@code Running} gets a local process, started with one command
 * and the pod's resolved container environment plus {@code PORT} (a free port); the process is
 * stopped when the pod goes away. The live set is written to {@code <workdir>/pods.tsv}
 * ({@code pod<TAB>port<TAB>pid<TAB>template-hash}) for scripts.
 *
 * <p>Pod events are handled one at a time on a single thread. A process that exits while its pod
 * still wants it is started again after a back-off (1 s, doubling up to 30 s), as the kubelet
 * restarts containers. {@link #close()} stops every process.
 */
public final class LocalPodRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalPodRunner.class);
  private static final String TEMPLATE_HASH_LABEL = "rollouts-pod-template-hash";
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  /** A pod's local process. */
  public record LocalPod(String podName, int port, long pid, String templateHash, Process process) {}

  private final KubernetesClient client;
  private final String namespace;
  private final String selector;
  private final String containerName;
  private final List<String> command;
  private final Path workdir;
  private final PodEnv podEnv;
  private final ScheduledExecutorService events = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "local-pods-events");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, LocalPod> running = new TreeMap<>();
  private final Map<String, Integer> restarts = new HashMap<>();
  private SharedIndexInformer<Pod> informer;

  /**
   * @param selector a label selector such as {@code app=deal-service}
   * @param containerName the container whose env is used, or null for the first one
   * @param command the command started for every pod
   * @param workdir where process logs and {@code pods.tsv} go; created if missing
   */
  public LocalPodRunner(KubernetesClient client, String namespace, String selector, String containerName,
      List<String> command, Path workdir) {
    this.client = Objects.requireNonNull(client, "client");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.selector = Objects.requireNonNull(selector, "selector");
    this.containerName = containerName;
    this.command = List.copyOf(command);
    if (this.command.isEmpty()) {
      throw new IllegalArgumentException("no command to run for the pods: give one after '--'");
    }
    this.workdir = workdir;
    this.podEnv = new PodEnv(client);
  }

  /** Starts watching pods; returns at once. */
  public synchronized LocalPodRunner start() {
    try {
      Files.createDirectories(workdir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create work dir " + workdir, e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, "local-pods-shutdown"));
    informer = client.pods().inNamespace(namespace).withLabelSelector(selector).inform(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        events.execute(() -> reconcile(pod, false));
      }

      @Override
      public void onUpdate(Pod old, Pod pod) {
        events.execute(() -> reconcile(pod, false));
      }

      @Override
      public void onDelete(Pod pod, boolean unknownFinalState) {
        events.execute(() -> reconcile(pod, true));
      }
    }, TimeUnit.SECONDS.toMillis(30));
    log.info("running pods {} in namespace {} as local processes: {} … {}", selector, namespace,
        command.get(0), command.get(command.size() - 1));
    return this;
  }

  /** Returns a snapshot of the running local pods by pod name. */
  public synchronized Map<String, LocalPod> pods() {
    return Map.copyOf(running);
  }

  private synchronized void reconcile(Pod pod, boolean deleted) {
    String name = pod.getMetadata().getName();
    boolean wanted = !deleted && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getSpec().getNodeName() != null
        && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    LocalPod current = running.get(name);
    if (wanted && current == null) {
      try {
        running.put(name, launch(pod));
      } catch (RuntimeException e) {
        log.error("pod {} not started: {}", name, e.getMessage());
      }
    } else if (!wanted && current != null) {
      stop(running.remove(name));
      restarts.remove(name);
    } else {
      return;
    }
    writeState();
  }

  /** A process ended by itself: forget it and, while its pod exists, start it again later. */
  private synchronized void exited(String name, Process process) {
    LocalPod current = running.get(name);
    if (current == null || current.process() != process) {
      return;
    }
    running.remove(name);
    writeState();
    int attempt = restarts.merge(name, 1, Integer::sum);
    long backoffSeconds = Math.min(30, 1L << Math.min(attempt - 1, 5));
    log.warn("pod {}: process {} exited with code {} (see {}); restarting in {}s", name, process.pid(),
        process.exitValue(), workdir.resolve(name + ".log"), backoffSeconds);
    events.schedule(() -> {
      Pod pod = informer == null ? null : informer.getStore().getByKey(namespace + "/" + name);
      if (pod != null) {
        reconcile(pod, false);
      }
    }, backoffSeconds, TimeUnit.SECONDS);
  }

  private LocalPod launch(Pod pod) {
    Container container = container(pod);
    Map<String, String> env = podEnv.resolve(pod, container);
    int port = freePort();
    env.put("PORT", Integer.toString(port));
    String name = pod.getMetadata().getName();
    Path logFile = workdir.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      process.onExit().thenRun(() -> events.execute(() -> exited(name, process)));
      String hash = pod.getMetadata().getLabels() == null ? "" : pod.getMetadata().getLabels().getOrDefault(TEMPLATE_HASH_LABEL, "");
      log.info("pod {} (template {}) → pid {} on port {}, log {}", name, hash, process.pid(), port, logFile);
      return new LocalPod(name, port, process.pid(), hash, process);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + String.join(" ", command) + " for pod " + name, e);
    }
  }

  private Container container(Pod pod) {
    List<Container> containers = pod.getSpec().getContainers();
    if (containerName == null) {
      return containers.get(0);
    }
    return containers.stream().filter(c -> containerName.equals(c.getName())).findFirst()
        .orElseThrow(() -> new IllegalStateException("pod " + pod.getMetadata().getName() + " has no container '"
            + containerName + "': it has " + containers.stream().map(Container::getName).toList()));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free local port", e);
    }
  }

  private static void stop(LocalPod pod) {
    Process process = pod.process();
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    log.info("pod {} gone → pid {} stopped", pod.podName(), pod.pid());
  }

  private void writeState() {
    StringBuilder tsv = new StringBuilder();
    running.values().forEach(p -> tsv.append(p.podName()).append('\t').append(p.port()).append('\t')
        .append(p.pid()).append('\t').append(p.templateHash()).append('\n'));
    try {
      Path tmp = workdir.resolve("pods.tsv.tmp");
      Files.writeString(tmp, tsv, StandardCharsets.UTF_8);
      Files.move(tmp, workdir.resolve("pods.tsv"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("cannot write {}: {}", workdir.resolve("pods.tsv"), e.getMessage());
    }
  }

  private synchronized void stopAll() {
    running.values().forEach(LocalPodRunner::stop);
    running.clear();
    writeState();
  }

  /** Stops watching and stops every local process. Idempotent. */
  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
    events.shutdown();
    try {
      events.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stopAll();
  }
}
