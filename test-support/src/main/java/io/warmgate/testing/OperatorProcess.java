package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The warmgate operator as its own JVM, as it runs in a cluster: started from the packaged
 * {@code operator} module's classpath ({@link WarmgatePaths#moduleClasspath}) with leader election
 * off, its output appended to {@code <logDir>/operator.log}, killable with SIGKILL and killed at
 * JVM exit at the latest. {@link #refusals()} reads what the API server refused it. Not
 * thread-safe.
 */
public final class OperatorProcess implements AutoCloseable {

  private static final String MAIN = "io.warmgate.operator.WarmgateOperator";
  // The API server's Forbidden message: User "u" cannot <verb> resource "r" in API group "g"
  // in the namespace "n" (or at the cluster scope); the operator logs it with the failed call.
  private static final Pattern REFUSAL = Pattern.compile("User \"[^\"]+\" cannot \\S+ "
      + "(?:resource \"[^\"]*\"(?: in API group \"[^\"]*\")?(?: in the namespace \"[^\"]*\""
      + "| at the cluster scope)?|path \"[^\"]*\")");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path kubeconfig;
  private final Path logDir;
  private final int httpPort = FreePorts.next();
  private final Map<String, String> env = new LinkedHashMap<>();
  private final List<String> jvmOptions = new ArrayList<>();
  private String namespace = "warmgate-system";
  private long refusalsReadUpTo;
  private int webhookPort;
  private Process process;
  private Cleanup.Registration cleanup;
  private int starts;

  /** An operator for the cluster of {@code kubeconfig}; nothing runs before {@link #start()}. */
  public OperatorProcess(Path kubeconfig, Path logDir) {
    this.kubeconfig = kubeconfig;
    this.logDir = logDir;
  }

  /** Serves the pod-injection webhook on a free local port ({@link #webhookPort()}). */
  public OperatorProcess withWebhook() {
    webhookPort = FreePorts.next();
    env.put("WARMGATE_WEBHOOK_ENABLED", "true");
    env.put("WARMGATE_WEBHOOK_PORT", Integer.toString(webhookPort));
    env.put("WARMGATE_WEBHOOK_HOSTS", "127.0.0.1,localhost");
    return this;
  }

  /**
   * The namespace the operator runs in, as a pod's {@code POD_NAMESPACE} (its Lease and webhook
   * certificate Secret live there); {@code warmgate-system} unless set.
   */
  public OperatorProcess inNamespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  /** Adds an environment variable (an operator setting, e.g. {@code WARMGATE_NAMESPACES}). */
  public OperatorProcess withEnv(String name, String value) {
    env.put(name, value);
    return this;
  }

  /** Adds options to the {@code java} command line, e.g. {@code -XX:MaxRAMPercentage=75}. */
  public OperatorProcess withJvmOptions(List<String> options) {
    jvmOptions.addAll(options);
    return this;
  }

  /**
   * Returns the webhook's port.
   *
   * @throws IllegalStateException if {@link #withWebhook()} was not called
   */
  public int webhookPort() {
    if (webhookPort == 0) {
      throw new IllegalStateException("the webhook is off: call withWebhook() before start()");
    }
    return webhookPort;
  }

  /** Returns the port of /healthz, /readyz and /metrics. */
  public int httpPort() {
    return httpPort;
  }

  /**
   * Returns the process id of the running operator JVM.
   *
   * @throws IllegalStateException if it is not running
   */
  public long pid() {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("the operator is not running: call start() first");
    }
    return process.pid();
  }

  /** How many times {@link #start()} started a process. */
  public int starts() {
    return starts;
  }

  /**
   * Starts the operator and returns once {@code /readyz} answers 200.
   *
   * @throws IllegalStateException if it exits or is not ready within 90 s; see its log
   */
  public void start() {
    Path log = logDir.resolve("operator.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", WarmgatePaths.moduleClasspath("operator"), MAIN));
    try {
      Files.createDirectories(logDir);
      if (starts == 0 && Files.exists(log)) {
        // The log may hold earlier operators' lines (it is appended to); read only this one's.
        refusalsReadUpTo = Files.size(log);
      }
      ProcessBuilder builder = new ProcessBuilder(command)
          .directory(WarmgatePaths.repoDir().toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(Map.of(
          "KUBECONFIG", kubeconfig.toString(),
          "POD_NAMESPACE", namespace,
          "WARMGATE_LEADER_ELECTION", "false",
          "WARMGATE_HTTP_PORT", Integer.toString(httpPort),
          // Test Valkey servers listen on loopback, outside the operator's default allowlist.
          "WARMGATE_VALKEY_ALLOWED_ADDRESSES", "127.0.0.1",
          "WARMGATE_LOG_FORMAT", "text"));
      builder.environment().putAll(env);
      process = builder.start();
      starts++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the operator: " + command, e);
    }
    Process started = process;
    cleanup = Cleanup.atExit("operator pid " + started.pid(), started::destroyForcibly);
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!ready()) {
      if (!started.isAlive()) {
        throw new IllegalStateException("the operator exited with " + started.exitValue()
            + refusalsSentence() + ": see " + log);
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException("the operator was not ready within 90 s"
            + refusalsSentence() + ": see " + log);
      }
      sleep(Duration.ofMillis(250));
    }
  }

  /**
   * Returns the body of {@code GET /<path>} on the operator's HTTP port.
   *
   * @throws IllegalStateException if it does not answer 200
   */
  public String get(String path) {
    try {
      HttpResponse<String> response = HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET /" + path + " answered " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("GET /" + path + " on port " + httpPort + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET /" + path, e);
    }
  }

  /**
   * Returns each distinct request the API server refused the operator (403 Forbidden), as its
   * message puts it ({@code User "..." cannot patch resource "rollouts/status" in API group ...}),
   * that the operator logged since the previous call; empty when there was none.
   */
  public List<String> refusals() {
    Path log = logDir.resolve("operator.log");
    if (!Files.exists(log)) {
      return List.of();
    }
    List<String> found = new ArrayList<>();
    try (InputStream in = Files.newInputStream(log)) {
      in.skipNBytes(Math.min(refusalsReadUpTo, Files.size(log)));
      String read = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      // A line still being written is read whole next time.
      String complete = read.substring(0, read.lastIndexOf('\n') + 1);
      refusalsReadUpTo += complete.getBytes(StandardCharsets.UTF_8).length;
      for (String line : complete.split("\n")) {
        if (!line.contains("forbidden")) {
          continue;
        }
        Matcher matcher = REFUSAL.matcher(line);
        String refusal = matcher.find() ? matcher.group() : line.strip();
        if (!found.contains(refusal)) {
          found.add(refusal);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log, e);
    }
    return found;
  }

  private String refusalsSentence() {
    List<String> refused = refusals();
    return refused.isEmpty() ? "" : "; the API server refused it: " + String.join("; ", refused);
  }

  /** SIGKILL: no shutdown hook, no graceful release of anything. */
  public void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      await(process);
    }
    forgetCleanup();
  }

  /** SIGTERM (a graceful stop), then SIGKILL after 10 s. Idempotent. */
  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!await(process)) {
        kill();
      }
    }
    forgetCleanup();
  }

  private boolean ready() {
    try {
      return HTTP.send(request("readyz"), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/" + path))
        .timeout(Duration.ofSeconds(5)).build();
  }

  private void forgetCleanup() {
    if (cleanup != null) {
      cleanup.close();
      cleanup = null;
    }
  }

  private static boolean await(Process process) {
    try {
      return process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the operator", e);
    }
  }
}
