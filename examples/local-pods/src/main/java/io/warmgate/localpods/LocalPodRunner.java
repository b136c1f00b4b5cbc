package io.warmgate.localpods;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the kubelet for a cluster without a container runtime (kwok): every pod matching a label
 * selector that is scheduled and {@code Running} gets a local process, started with one command
 * and the pod's resolved container environment; the process is stopped when the pod goes away.
 *
 * <p>Ports: the process gets {@code PORT=0} and {@code PORT_FILE=<workdir>/<pod>.port}. It binds a
 * port of its own choosing (with 0, one the OS picks, so no two processes can get the same one)
 * and writes the bound number to {@code PORT_FILE} once it serves, in one atomic step (write a
 * temporary file, then rename it). Until then the pod's {@link LocalPod#port()} is 0. The pods
 * that serve are written to {@code <workdir>/pods.tsv} ({@code pod<TAB>port<TAB>pid<TAB>template-hash})
 * for scripts, and to {@code <workdir>/targets.json} for Prometheus (file service discovery).
 *
 * <p>Pod events are handled one at a time on a single thread. A process that exits while its pod
 * still wants it is started again after a back-off (1 s, doubling up to 30 s), as the kubelet
 * restarts containers. {@link #close()} stops every process.
 */
public final class LocalPodRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalPodRunner.class);
  /** The labels naming a pod's revision: Argo Rollouts', the Deployment's, the StatefulSet's. */
  private static final List<String> TEMPLATE_HASH_LABELS =
      List.of("rollouts-pod-template-hash", "pod-template-hash", "controller-revision-hash");
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  /** Environment variable naming the file in which a pod process reports the port it serves on. */
  public static final String PORT_FILE_ENV = "PORT_FILE";

  private static final Duration PORT_POLL = Duration.ofMillis(100);

  /**
   * A pod's local process.
   *
   * @param port the port the process reported in its {@value #PORT_FILE_ENV}, or 0 until it has
   */
  public record LocalPod(String podName, int port, long pid, String templateHash, Process process) {

    /** Whether the process has reported the port it serves on. */
    public boolean serving() {
      return port > 0;
    }

    LocalPod withPort(int reported) {
      return new LocalPod(podName, reported, pid, templateHash, process);
    }
  }

  private final KubernetesClient client;
  private final String namespace;
  private final String selector;
  private final String containerName;
  private final List<String> command;
  private final Path workdir;
  private final PodEnv podEnv;
  private final ScheduledThreadPoolExecutor events = new ScheduledThreadPoolExecutor(1, r -> {
    Thread t = new Thread(r, "local-pods-events");
    t.setDaemon(true);
    return t;
  });
  private final Map<String, LocalPod> running = new TreeMap<>();
  private final Map<String, Integer> restarts = new HashMap<>();
  /** Pods whose process exited and whose restart (or decision not to) is still to come. */
  private final Set<String> pendingRestarts = new HashSet<>();
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
    events.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
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

  /** Returns a snapshot of the running local pods by pod name, serving or not yet. */
  public synchronized Map<String, LocalPod> pods() {
    return Map.copyOf(running);
  }

  private synchronized void reconcile(Pod pod, boolean deleted) {
    String name = pod.getMetadata().getName();
    boolean wanted = !deleted && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getSpec().getNodeName() != null
        && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    LocalPod current = running.get(name);
    if (wanted && current != null && !Objects.equals(current.templateHash(), templateHash(pod))) {
      // A pod of this name from another revision, as a StatefulSet's replacement is, whose
      // deletion this runner has not seen: the process running is the old revision's.
      stop(running.remove(name));
      restarts.remove(name);
      current = null;
    }
    if (wanted && current == null) {
      try {
        LocalPod launched = launch(pod);
        running.put(name, launched);
        later(() -> awaitPort(launched), PORT_POLL.toMillis());
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
    Path logFile = workdir.resolve(name + ".log");
    log.warn("pod {}: process {} exited with code {}{} (last line of {}: {}); restarting in {}s", name,
        process.pid(), process.exitValue(), current.serving() ? " after serving on port " + current.port() : "",
        logFile, lastLine(logFile), backoffSeconds);
    pendingRestarts.add(name);
    later(() -> {
      try {
        Pod pod = informer == null ? null : informer.getStore().getByKey(namespace + "/" + name);
        if (pod != null) {
          reconcile(pod, false);
        }
      } finally {
        restartDone(name);
      }
    }, TimeUnit.SECONDS.toMillis(backoffSeconds));
  }

  private synchronized void restartDone(String name) {
    pendingRestarts.remove(name);
  }

  /**
   * Whether no process of pod {@code name} runs and none is to be started: none was, or its pod
   * is gone and a restart that was due has found so. What a caller waits on to know that nothing
   * of the pod is left, nor will come back.
   */
  public synchronized boolean stopped(String name) {
    return !running.containsKey(name) && !pendingRestarts.contains(name);
  }

  /** Runs {@code task} on the event thread after {@code delayMillis}, unless the runner is closed by then. */
  private void later(Runnable task, long delayMillis) {
    try {
      events.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // close() stops every process; nothing to restart or wait for
    }
  }

  /**
   * Reads the port a process reported, while it is still its pod's process; looks again later
   * while there is no port file yet.
   */
  private synchronized void awaitPort(LocalPod launched) {
    String name = launched.podName();
    LocalPod current = running.get(name);
    if (current == null || current.process() != launched.process() || !launched.process().isAlive()) {
      return;
    }
    Path file = portFile(name);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    } catch (NoSuchFileException notYet) {
      later(() -> awaitPort(launched), PORT_POLL.toMillis());
      return;
    } catch (IOException e) {
      log.warn("pod {}: cannot read {} ({}); trying again", name, file, e.getMessage());
      later(() -> awaitPort(launched), PORT_POLL.toMillis());
      return;
    }
    int port = parsePort(text);
    if (port == 0) {
      log.error("pod {}: {} holds '{}', not a TCP port; the pod is not listed as serving. The process must"
          + " write the port it bound (1-65535) to a temporary file and rename that to ${}", name, file, text,
          PORT_FILE_ENV);
      return;
    }
    running.put(name, current.withPort(port));
    writeState();
    log.info("pod {} → pid {} serves on port {}", name, launched.pid(), port);
  }

  /** The port in {@code text}, or 0 if it is not one. */
  private static int parsePort(String text) {
    try {
      int port = Integer.parseInt(text);
      return port > 0 && port <= 65535 ? port : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private Path portFile(String podName) {
    return workdir.resolve(podName + ".port");
  }

  private LocalPod launch(Pod pod) {
    Container container = container(pod);
    Map<String, String> env = podEnv.resolve(pod, container);
    String name = pod.getMetadata().getName();
    Path portFile = portFile(name);
    try {
      Files.deleteIfExists(portFile);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the previous run's " + portFile, e);
    }
    env.put("PORT", "0");
    env.put(PORT_FILE_ENV, portFile.toString());
    Path logFile = workdir.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      process.onExit().thenRun(() -> events.execute(() -> exited(name, process)));
      String hash = templateHash(pod);
      log.info("pod {} (template {}) → pid {}, log {}", name, hash, process.pid(), logFile);
      return new LocalPod(name, 0, process.pid(), hash, process);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + String.join(" ", command) + " for pod " + name, e);
    }
  }

  private static String templateHash(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    return labels == null ? "" : TEMPLATE_HASH_LABELS.stream().map(labels::get)
        .filter(Objects::nonNull).findFirst().orElse("");
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

  /** The last non-blank line within the last few KiB of a process log: usually why it exited. */
  private static String lastLine(Path logFile) {
    try (SeekableByteChannel channel = Files.newByteChannel(logFile)) {
      long size = channel.size();
      ByteBuffer tail = ByteBuffer.allocate((int) Math.min(size, 4096));
      channel.position(size - tail.capacity());
      while (tail.hasRemaining() && channel.read(tail) >= 0) {
        // fill the buffer
      }
      String[] lines = new String(tail.array(), 0, tail.position(), StandardCharsets.UTF_8).split("\n");
      for (int i = lines.length - 1; i >= 0; i--) {
        if (!lines[i].isBlank()) {
          return lines[i].strip();
        }
      }
      return "(empty)";
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
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
    running.values().stream().filter(LocalPod::serving).forEach(p -> tsv.append(p.podName()).append('\t').append(p.port()).append('\t')
        .append(p.pid()).append('\t').append(p.templateHash()).append('\n'));
    try {
      Path tmp = workdir.resolve("pods.tsv.tmp");
      Files.writeString(tmp, tsv, StandardCharsets.UTF_8);
      Files.move(tmp, workdir.resolve("pods.tsv"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("cannot write {}: {}", workdir.resolve("pods.tsv"), e.getMessage());
    }
    writeScrapeTargets();
  }

  /**
   * Writes the serving pods as a Prometheus file service-discovery list,
   * {@code <workdir>/targets.json}: one target {@code 127.0.0.1:<port>} per pod, labelled
   * {@code namespace} and {@code pod} as Kubernetes service discovery would label it.
   */
  private void writeScrapeTargets() {
    StringBuilder json = new StringBuilder("[");
    running.values().stream().filter(LocalPod::serving).forEach(p -> json
        .append(json.length() > 1 ? "," : "").append("\n  {\"targets\": [\"127.0.0.1:")
        .append(p.port()).append("\"], \"labels\": {\"namespace\": \"").append(namespace)
        .append("\", \"pod\": \"").append(p.podName()).append("\"}}"));
    json.append(json.length() > 1 ? "\n]\n" : "]\n");
    try {
      Path tmp = workdir.resolve("targets.json.tmp");
      Files.writeString(tmp, json, StandardCharsets.UTF_8);
      Files.move(tmp, workdir.resolve("targets.json"), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      log.warn("cannot write {}: {}", workdir.resolve("targets.json"), e.getMessage());
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
