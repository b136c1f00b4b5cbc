package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.gateway.config.GatewayConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 5,000 clients ask for 5,000 distinct responses at once from one gateway process on a real
 * redis-server: the gateway serves as many keys as its cap allows and answers the rest 429 with
 * {@code Retry-After}, so its Valkey connections (counted by the server, {@code INFO clients})
 * and its upstream calls stay under the cap. The gateway runs in its own JVM so that the test's
 * client and upstream sockets do not share its file descriptor limit.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KeyCapIT {

  static final int KEYS = 5_000;
  static final int MAX_KEYS = 100;
  /**
   * The gateway's connections beyond one per key it reads: its shared connection and, on a
   * server, nothing else; the test's own connection and a margin for one reconnecting reader.
   */
  static final int OTHER_CONNECTIONS = 5;

  @RegisterExtension
  final ValkeyExtension valkey = new ValkeyExtension(ValkeyMode.STANDALONE);

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void distinctKeysBeyondTheCapGet429AndValkeyConnectionsStayUnderTheCap() throws Exception {
    ExecutorService executor = Executors.newFixedThreadPool(4);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(60)).executor(executor).build();
    CompletableFuture<Void> gate = new CompletableFuture<>();
    try (TestUpstream upstream = TestUpstream.start()) {
      upstream.script("fanout", TestUpstream.Script.chunks(3, Duration.ofMillis(1)).gatedAt(1, gate, false));
      Map<String, String> env = GatewayFleet.env(valkey.env(), upstream);
      env.put(GatewayConfig.MAX_KEYS, Integer.toString(MAX_KEYS));
      try (GatewayProcess gateway = GatewayProcess.start(env, "key-cap")) {
        long before = connectedClients();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger retryAfter = new AtomicInteger();
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>(KEYS);
        for (int i = 0; i < KEYS; i++) {
          HttpRequest request = HttpRequest.newBuilder(
                  URI.create("http://127.0.0.1:" + gateway.port() + "/v1/streams/fanout"))
              .timeout(Duration.ofMinutes(4))
              .header("Content-Type", "application/json")
              .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
              .POST(HttpRequest.BodyPublishers.ofString(SseClient.body(Map.of("key", i), Map.of())))
              .build();
          calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
            if (r != null && r.statusCode() == 429) {
              refused.incrementAndGet();
              r.headers().firstValue("Retry-After").ifPresent(v -> retryAfter.incrementAndGet());
            }
          }));
        }
        // Every request is either streaming (held at the upstream's gate) or refused.
        AtomicLong peak = new AtomicLong();
        AtomicInteger streaming = new AtomicInteger();
        try {
          await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250)).until(() -> {
            peak.accumulateAndGet(connectedClients(), Math::max);
            streaming.set(subscribers(gateway.port(), http));
            return streaming.get() + refused.get() == KEYS;
          });
        } catch (ConditionTimeoutException e) {
          // reported by the assertions below with the figures reached
        }
        peak.accumulateAndGet(connectedClients(), Math::max);
        System.out.printf("KeyCapIT: %d distinct keys, cap %d: %d streaming, %d refused with 429 "
                + "(%d with Retry-After), %d upstream calls, Valkey connected_clients %d before, peak %d%n",
            KEYS, MAX_KEYS, streaming.get(), refused.get(), retryAfter.get(),
            upstream.calls("fanout"), before, peak.get());
        assertThat(peak.get()).as("Valkey connected_clients at the peak")
            .isLessThanOrEqualTo(MAX_KEYS + OTHER_CONNECTIONS);
        assertThat(upstream.calls("fanout")).isLessThanOrEqualTo(MAX_KEYS);
        assertThat(streaming.get()).isEqualTo(MAX_KEYS);
        assertThat(refused.get()).isEqualTo(KEYS - MAX_KEYS);
        assertThat(retryAfter.get()).isEqualTo(refused.get());

        // Once the admitted responses complete, their slots free up for new keys.
        gate.complete(null);
        await().atMost(Duration.ofMinutes(1)).until(() -> subscribers(gateway.port(), http) == 0);
        HttpResponse<String> later = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.port() + "/v1/streams/fanout"))
            .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
            .POST(HttpRequest.BodyPublishers.ofString(SseClient.body(Map.of("key", "later"), Map.of())))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(later.statusCode()).isEqualTo(200);
        assertThat(SseEvent.parseAll(later.body())).last().extracting(SseEvent::event).isEqualTo("done");
        calls.forEach(c -> c.cancel(true));
      }
    } finally {
      gate.complete(null);
      executor.shutdownNow();
    }
  }

  private long connectedClients() {
    String info = valkey.commands().info("clients");
    return info.lines().filter(l -> l.startsWith("connected_clients:"))
        .mapToLong(l -> Long.parseLong(l.substring("connected_clients:".length()).trim()))
        .findFirst().orElseThrow();
  }

  private static int subscribers(int port, HttpClient http) throws Exception {
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/v1/metrics")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(metrics.body()).path("subscribers").asInt();
  }
}
