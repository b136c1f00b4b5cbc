package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.gateway.config.GatewayConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client authentication and the burst flag's cap, over real sockets: one gateway on a real
 * redis-server in front of a local upstream, called with and without bearer tokens.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GatewayAuthIT {

  @RegisterExtension
  final ValkeyExtension valkey = new ValkeyExtension(ValkeyMode.STANDALONE);

  private TestUpstream upstream;
  private SseClient client;
  private GatewayFleet fleet;

  @BeforeEach
  void start() throws Exception {
    upstream = TestUpstream.start();
    client = new SseClient();
  }

  @AfterEach
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    client.close();
    upstream.close();
  }

  @Test
  void aStreamWithoutAValidStreamTokenIsRefusedBeforeAnyUpstreamCall() throws Exception {
    upstream.script("secret", TestUpstream.Script.chunks(2, Duration.ofMillis(1)));
    fleet = GatewayFleet.start(1, GatewayFleet.env(valkey.env(), upstream));
    String body = SseClient.body(Map.of("q", "anything"), Map.of());

    HttpResponse<String> none = client.send(stream(body).build());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
        v -> assertThat(v).startsWith("Bearer"));
    assertThat(none.body()).contains("Authorization: Bearer");
    HttpResponse<String> wrong = client.send(stream(body)
        .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN.replace('0', '1')).build());
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).doesNotContain(GatewayFleet.STREAM_TOKEN);
    HttpResponse<String> basic = client.send(stream(body)
        .header("Authorization", "Basic " + GatewayFleet.STREAM_TOKEN).build());
    assertThat(basic.statusCode()).isEqualTo(401);
    HttpResponse<String> burstToken = client.send(stream(body)
        .header("Authorization", "Bearer " + GatewayFleet.BURST_TOKEN).build());
    assertThat(burstToken.statusCode()).isEqualTo(403);
    assertThat(burstToken.body()).contains("burst");
    assertThat(upstream.calls("secret")).isZero();
    assertThat(fleet.get(0).metrics().requests()).isZero();

    List<SseEvent> events = client.stream(fleet.port(0), "secret", body, null).get(60, TimeUnit.SECONDS);
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data))
        .containsExactly("chunk-0", "chunk-1");
    assertThat(upstream.calls("secret")).isEqualTo(1);
  }

  @Test
  void theBurstFlagNeedsABurstTokenAndATtlWithinTheCap() throws Exception {
    Map<String, String> env = GatewayFleet.env(valkey.env(), upstream);
    env.put(GatewayConfig.BURST_FLAG_MAX_TTL, "10m");
    fleet = GatewayFleet.start(1, env);
    var redis = valkey.commands();

    assertThat(client.send(burst("PUT", "/v1/burst?ttl=1m", null)).statusCode()).isEqualTo(401);
    assertThat(client.send(burst("DELETE", "/v1/burst", null)).statusCode()).isEqualTo(401);
    assertThat(client.send(burst("PUT", "/v1/burst/daily?ttl=1m", GatewayFleet.STREAM_TOKEN))
        .statusCode()).isEqualTo(403);
    assertThat(redis.exists("wg:gw:burst", "wg:gw:burst:daily")).isZero();

    HttpResponse<String> year = client.send(burst("PUT", "/v1/burst?ttl=8760h", GatewayFleet.BURST_TOKEN));
    assertThat(year.statusCode()).isEqualTo(400);
    assertThat(year.body()).contains("8760h", "10m", "WARMGATE_GATEWAY_BURST_FLAG_MAX_TTL");
    assertThat(redis.exists("wg:gw:burst")).isZero();

    assertThat(client.send(burst("PUT", "/v1/burst/daily?ttl=10m", GatewayFleet.BURST_TOKEN))
        .statusCode()).isEqualTo(204);
    assertThat(redis.pttl("wg:gw:burst:daily")).isBetween(590_000L, 600_000L);
    assertThat(client.send(burst("DELETE", "/v1/burst/daily", GatewayFleet.STREAM_TOKEN))
        .statusCode()).isEqualTo(403);
    assertThat(redis.exists("wg:gw:burst:daily")).isEqualTo(1);
    assertThat(client.send(burst("DELETE", "/v1/burst/daily", GatewayFleet.BURST_TOKEN))
        .statusCode()).isEqualTo(204);
    assertThat(redis.exists("wg:gw:burst:daily")).isZero();
  }

  @Test
  void tokensComeFromMountedFilesAndARotatedFileIsUsedWithoutRestart(@TempDir Path dir)
      throws Exception {
    upstream.script("secret", TestUpstream.Script.chunks(1, Duration.ofMillis(1)));
    Path streamTokens = dir.resolve("stream-tokens");
    Path burstTokens = dir.resolve("burst-tokens");
    String old = "old-stream-token-aaaaaaaaaaaaaaaa";
    String next = "new-stream-token-bbbbbbbbbbbbbbbb";
    Files.writeString(streamTokens, "# one token a line\n" + old + "\n");
    Files.writeString(burstTokens, GatewayFleet.BURST_TOKEN + "\n");
    Map<String, String> env = GatewayFleet.env(valkey.env(), upstream);
    env.remove(GatewayConfig.STREAM_TOKENS);
    env.remove(GatewayConfig.BURST_TOKENS);
    env.put(GatewayConfig.STREAM_TOKENS_FILE, streamTokens.toString());
    env.put(GatewayConfig.BURST_TOKENS_FILE, burstTokens.toString());
    fleet = GatewayFleet.start(1, env);
    String body = SseClient.body(Map.of("q", "rotating"), Map.of());

    assertThat(client.send(stream(body).header("Authorization", "Bearer " + old).build())
        .statusCode()).isEqualTo(200);
    assertThat(client.send(stream(body).header("Authorization", "Bearer " + next).build())
        .statusCode()).isEqualTo(401);
    // Rotation as a Secret update does it: the new token first next to the old, then alone.
    Files.writeString(streamTokens, old + "\n" + next + "\n");
    await().atMost(Duration.ofSeconds(30)).until(() -> client.send(stream(body)
        .header("Authorization", "Bearer " + next).build()).statusCode() == 200);
    Files.writeString(streamTokens, next + "\n");
    await().atMost(Duration.ofSeconds(30)).until(() -> client.send(stream(body)
        .header("Authorization", "Bearer " + old).build()).statusCode() == 401);
    assertThat(client.send(burst("PUT", "/v1/burst?ttl=1m", GatewayFleet.BURST_TOKEN))
        .statusCode()).isEqualTo(204);
  }

  @Test
  void healthAndMetricsNeedNoToken() throws Exception {
    fleet = GatewayFleet.start(1, GatewayFleet.env(valkey.env(), upstream));
    assertThat(client.send(get("/healthz")).statusCode()).isEqualTo(200);
    assertThat(client.send(get("/v1/metrics")).statusCode()).isEqualTo(200);
  }

  private HttpRequest.Builder stream(String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/streams/secret"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private HttpRequest burst(String method, String path, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port(0) + path))
        .timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request.build();
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.port(0) + path))
        .timeout(Duration.ofSeconds(30)).GET().build();
  }
}
