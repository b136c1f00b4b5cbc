package io.warmgate.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * The warmgate operator as its own JVM, as it runs in a cluster: started from the built module's
 * classpath, with its pod-injection webhook on a local port, killable with SIGKILL.
 */
final class OperatorProcess implements AutoCloseable {

  private final Path kubeconfig;
  private final Path logDir;
  private final int httpPort = freePort();
  private final int webhookPort = freePort();
  private Process process;
  private int starts;

  OperatorProcess(Path kubeconfig, Path logDir) {
    this.kubeconfig = kubeconfig;
    this.logDir = logDir;
  }

  int webhookPort() {
    return webhookPort;
  }

  /** Starts the operator and waits until it reports ready. */
  void start() {
    Path repo = Repo.dir();
    String classpath = Repo.moduleClasspath("operator");
    Map<String, String> env = new HashMap<>(Map.of(
        "KUBECONFIG", kubeconfig.toString(),
        "POD_NAMESPACE", "warmgate-system",
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_HTTP_PORT", Integer.toString(httpPort),
        "WARMGATE_LOG_FORMAT", "text",
        "WARMGATE_WEBHOOK_ENABLED", "true",
        "WARMGATE_WEBHOOK_PORT", Integer.toString(webhookPort),
        "WARMGATE_WEBHOOK_HOSTS", "127.0.0.1,localhost"));
    try {
      Files.createDirectories(logDir);
      ProcessBuilder builder = new ProcessBuilder(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", classpath, "io.warmgate.operator.WarmgateOperator"))
          .directory(repo.toFile())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("operator.log").toFile()));
      builder.environment().putAll(env);
      process = builder.start();
      starts++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the operator", e);
    }
    Process started = process;
    Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
    Awaitility.await("operator ready (log " + logDir.resolve("operator.log") + ")")
        .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          if (!started.isAlive()) {
            throw new IllegalStateException("the operator exited with " + started.exitValue()
                + ": see " + logDir.resolve("operator.log"));
          }
          return Http.ok("http://127.0.0.1:" + httpPort + "/readyz");
        });
  }

  /** SIGKILL: no shutdown hook, no graceful release of anything. */
  void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  int starts() {
    return starts;
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
