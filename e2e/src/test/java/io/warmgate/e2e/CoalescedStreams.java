package io.warmgate.e2e;

import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The stream gateway as its own process ({@code GatewayMain}) in front of a local streaming
 * upstream, with bursts of identical requests: every {@code period}, {@code clients} clients ask
 * for the same response at once, so the gateway makes one upstream call per burst.
 */
final class CoalescedStreams implements AutoCloseable {

  /** The bearer token the gateway admits to streams (it refuses clients without one). */
  private static final String TOKEN = "e2e-stream-token-0123456789";

  private final HttpServer upstream;
  private final Process gateway;
  private final int port;
  private final Thread bursts;
  private final AtomicBoolean running = new AtomicBoolean(true);
  final AtomicInteger upstreamCalls = new AtomicInteger();
  final AtomicInteger completed = new AtomicInteger();

  CoalescedStreams(String valkeyAddress, Path workdir, int clients, Duration period) throws IOException {
    upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/v1/templates/", exchange -> {
      upstreamCalls.incrementAndGet();
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream body = exchange.getResponseBody()) {
        for (int i = 0; i < 5; i++) {
          sleep(Duration.ofMillis(100));
          body.write(("data: {\"rank\": " + i + "}\n\n").getBytes(StandardCharsets.UTF_8));
          body.flush();
        }
      }
    });
    upstream.start();
    port = freePort();
    Files.createDirectories(workdir);
    ProcessBuilder builder = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", Repo.moduleClasspath("stream-gateway"), "io.warmgate.gateway.GatewayMain")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(workdir.resolve("gateway.log").toFile()));
    builder.environment().put("WARMGATE_VALKEY_ADDRESSES", valkeyAddress);
    builder.environment().put("WARMGATE_GATEWAY_PORT", Integer.toString(port));
    builder.environment().put("WARMGATE_GATEWAY_UPSTREAM_URL", "http://127.0.0.1:"
        + upstream.getAddress().getPort() + "/v1/templates/{template}/stream");
    builder.environment().put("WARMGATE_GATEWAY_STREAM_TOKENS", TOKEN);
    gateway = builder.start();
    Process started = gateway;
    Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly, "e2e-gateway-kill"));
    await("stream gateway serving").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          if (!gateway.isAlive()) {
            throw new IllegalStateException("the stream gateway exited with " + gateway.exitValue()
                + ": see " + workdir.resolve("gateway.log"));
          }
          return Http.ok("http://127.0.0.1:" + port + "/healthz");
        });
    bursts = new Thread(() -> {
      int burst = 0;
      while (running.get()) {
        String body = "{\"shared\": {\"burst\": " + burst++ + "}, \"perUser\": {}}";
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
          calls.add(Http.CLIENT.sendAsync(HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + port + "/v1/streams/daily-reco"))
              .header("Content-Type", "application/json").timeout(Duration.ofSeconds(20))
              .header("Authorization", "Bearer " + TOKEN)
              .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
              HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> call : calls) {
          try {
            if (call.get().body().contains("event: done")) {
              completed.incrementAndGet();
            }
          } catch (Exception e) {
            // counted as not completed
          }
        }
        sleep(period);
      }
    }, "e2e-stream-bursts");
    bursts.setDaemon(true);
    bursts.start();
  }

  /** {@code 127.0.0.1:<port>} of the gateway, which serves its meters on {@code /metrics}. */
  String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    bursts.join(30_000);
    gateway.destroy();
    if (!gateway.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      gateway.destroyForcibly();
    }
    upstream.stop(0);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
