package io.warmgate.example.deals;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import io.warmgate.testing.WarmgatePaths;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** deal-service as the process that local-pods and hack/up.sh start: {@code java ... DealService}. */
class DealServiceProcessIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir
  Path dir;

  private final List<Process> processes = new ArrayList<>();

  @BeforeAll
  static void seed() {
    DealSeeder.seed(spanner.databaseClient(), 5);
  }

  @AfterEach
  void stopProcesses() throws InterruptedException {
    for (Process process : processes) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private Process start(String pod, String port) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("PORT", port);
    env.put(DealService.PORT_FILE, dir.resolve(pod + ".port").toString());
    env.put("WARMGATE_POD_NAME", pod);
    env.put("WARMGATE_CACHE_NAME", "deals");
    env.put("WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port());
    env.put("SPANNER_EMULATOR_HOST", spanner.emulatorHost());
    env.put("SPANNER_PROJECT", spanner.projectId());
    env.put("SPANNER_INSTANCE", spanner.instanceId());
    env.put("SPANNER_DATABASE", spanner.databaseId());
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", WarmgatePaths.moduleClasspath("examples/deal-service"),
        DealService.class.getName())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(pod + ".log").toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    process.getOutputStream().close();
    processes.add(process);
    return process;
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void processesStartedTogetherOnPortZeroEachReportAPortOfTheirOwnAndServeOnIt() throws Exception {
    List<String> pods = List.of("deal-a", "deal-b", "deal-c", "deal-d");
    for (String pod : pods) {
      start(pod, "0");
    }

    Map<String, Integer> ports = new HashMap<>();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
    while (ports.size() < pods.size()) {
      for (String pod : pods) {
        Path file = dir.resolve(pod + ".port");
        if (!ports.containsKey(pod) && Files.exists(file)) {
          ports.put(pod, Integer.parseInt(Files.readString(file).strip()));
        }
      }
      for (Process process : processes) {
        assertThat(process.isAlive()).as("every process serves (logs in %s)", dir).isTrue();
      }
      assertThat(Instant.now()).as("all ports reported in time (logs in %s)", dir).isBefore(deadline);
      Thread.sleep(100);
    }

    assertThat(ports.values()).doesNotHaveDuplicates().allMatch(port -> port > 0);
    for (String pod : pods) {
      HttpResponse<String> health = get(ports.get(pod), "/healthz");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).as("the process answering on %s's port", pod).contains("\"pod\":\"" + pod + "\"");
      assertThat(get(ports.get(pod), "/deals/" + DealSeeder.dealId(2)).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aPortThatCannotBeBoundEndsTheProcessNamingThePortAndTheCause() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      int port = taken.getLocalPort();
      Process process = start("deal-taken", Integer.toString(port));

      assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("the process ends instead of living on without HTTP")
          .isTrue();
      String output = Files.readString(dir.resolve("deal-taken.log"));
      assertThat(process.exitValue()).as(output).isEqualTo(1);
      assertThat(output).contains("deal-service: cannot serve HTTP on port " + port + ": Address already in use");
      assertThat(dir.resolve("deal-taken.port")).doesNotExist();
    }
  }
}
