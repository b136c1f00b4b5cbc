package io.warmgate.gateway.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A gateway in its own JVM ({@code GatewayMain}), so a test can kill it with SIGKILL: the kernel
 * closes its sockets, nothing in it runs any more, exactly like a crashed pod.
 */
public final class GatewayProcess implements AutoCloseable {

  private final Process process;
  private final int port;
  private final Path log;

  private GatewayProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code GatewayMain} with {@code env} (its port is chosen here) and waits until it
   * answers {@code /healthz}.
   */
  public static GatewayProcess start(Map<String, String> env, String name) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path log = Path.of("target", "gateway-" + name + ".log");
    Files.createDirectories(log.getParent());
    ProcessBuilder builder = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        "io.warmgate.gateway.GatewayMain"))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().putAll(env);
    builder.environment().put("WARMGATE_GATEWAY_PORT", Integer.toString(port));
    builder.environment().put("WARMGATE_POD_NAME", name);
    GatewayProcess gateway = new GatewayProcess(builder.start(), port, log);
    gateway.awaitHealthy(Duration.ofSeconds(90));
    return gateway;
  }

  /** The HTTP port. */
  public int port() {
    return port;
  }

  /** Sends SIGKILL and waits for the process to be gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  private void awaitHealthy(Duration timeout) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the gateway process exited with " + process.exitValue()
            + "; its output:\n" + Files.readString(log));
      }
      try {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/healthz")).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);  // polling a process we do not control; Awaitility cannot hook into it
    }
    kill();
    throw new IllegalStateException("the gateway process did not answer /healthz within " + timeout
        + "; its output:\n" + Files.readString(log));
  }
}
