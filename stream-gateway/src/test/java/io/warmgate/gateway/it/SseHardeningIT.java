package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.gateway.config.GatewayConfig;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a client sees when the upstream or the client misbehaves, over real sockets: event ids
 * that name their response, upstream failures without the upstream's address or body, hostile
 * upstream event names and sizes refused, idle connections closed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SseHardeningIT {

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

  private Map<String, String> env() {
    return GatewayFleet.env(valkey.env(), upstream);
  }

  @Test
  void aResumeWithAnIdOfAnExpiredResponseGetsAnErrorNotTheNextResponseSplicedOn() throws Exception {
    upstream.script("splice", TestUpstream.Script.of(List.of("first-0", "first-1", "first-2"), Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "100ms");
    fleet = GatewayFleet.start(1, env);
    String body = SseClient.body(Map.of("q", "splice"), Map.of());
    List<SseEvent> first = client.stream(fleet.port(0), "splice", body, null).get(60, TimeUnit.SECONDS);
    String seen = first.get(1).id();  // the client read two chunks, then lost the connection

    // The response expires; the next one (another generation) differs.
    await().atMost(Duration.ofSeconds(30)).until(() -> valkey.commands().keys("{wg:gw:*").isEmpty());
    upstream.script("splice", TestUpstream.Script.of(List.of("second-0", "second-1", "second-2"), Duration.ofMillis(1)));
    List<SseEvent> resumed = client.stream(fleet.port(0), "splice", body, seen).get(60, TimeUnit.SECONDS);

    assertThat(resumed).as("events after resuming from %s", seen).noneMatch(SseEvent::chunk);
    assertThat(resumed).last().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("Last-Event-ID");
    });
    List<SseEvent> fresh = client.stream(fleet.port(0), "splice", body, null).get(60, TimeUnit.SECONDS);
    assertThat(fresh.stream().filter(SseEvent::chunk).map(SseEvent::data))
        .containsExactly("second-0", "second-1", "second-2");
    assertThat(fresh.get(0).id()).isNotEqualTo(seen);
  }

  @Test
  void anUpstreamFailureReachesClientsWithoutTheUpstreamAddressOrItsErrorBody() throws Exception {
    upstream.script("down", TestUpstream.Script.chunks(1, Duration.ofMillis(1)).answering(502));
    fleet = GatewayFleet.start(1, env());
    List<SseEvent> events = client.stream(fleet.port(0), "down", SseClient.body(Map.of(), Map.of()), null)
        .get(60, TimeUnit.SECONDS);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("502").doesNotContain("127.0.0.1", "/v1/templates", "scripted failure",
          "http://");
    });
  }

  @Test
  void anUpstreamEventNameWithACarriageReturnIsRefused() throws Exception {
    upstream.script("inject", TestUpstream.Script.raw(List.of(
        "data: fine\n\n", "event: token\rid: 1-0\rdata: injected\ndata: real\n\n"), Duration.ofMillis(1)));
    fleet = GatewayFleet.start(1, env());
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/streams/inject"))
        .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(Duration.ofSeconds(60)).build());
    assertThat(response.body()).doesNotContain("\r").doesNotContain("injected");
    List<SseEvent> events = SseEvent.parseAll(response.body());
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("fine");
    assertThat(events).last().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("carriage return");
    });
  }

  @Test
  void anUpstreamEventLargerThanTheLimitIsAnError() throws Exception {
    upstream.script("huge", TestUpstream.Script.raw(List.of(
        "data: small\n\n", "data: " + "y".repeat(5000)), Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.UPSTREAM_MAX_EVENT_BYTES, "1024");
    fleet = GatewayFleet.start(1, env);
    List<SseEvent> events = client.stream(fleet.port(0), "huge", SseClient.body(Map.of(), Map.of()), null)
        .orTimeout(60, TimeUnit.SECONDS).get();
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("small");
    assertThat(events).last().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("1024 bytes");
    });
  }

  @Test
  void anIdleConnectionIsClosedAfterTheClientIdleTimeout() throws Exception {
    Map<String, String> env = env();
    env.put(GatewayConfig.CLIENT_IDLE_TIMEOUT, "1s");
    fleet = GatewayFleet.start(1, env);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", fleet.port(0)), 10_000);
      socket.setSoTimeout(15_000);
      InputStream in = socket.getInputStream();
      int read;
      try {
        read = in.read();
      } catch (SocketTimeoutException e) {
        read = -2;
      }
      assertThat(read).as("read on a connection that sent nothing (-1: closed, -2: still open after 15 s)")
          .isEqualTo(-1);
    }
  }

  @Test
  void aQuietStreamOutlivesTheClientIdleTimeout() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("quiet", TestUpstream.Script.chunks(3, Duration.ofMillis(1)).gatedAt(1, gate, false));
    Map<String, String> env = env();
    env.put(GatewayConfig.CLIENT_IDLE_TIMEOUT, "1s");
    fleet = GatewayFleet.start(1, env);
    CompletableFuture<List<SseEvent>> stream = client.stream(fleet.port(0), "quiet",
        SseClient.body(Map.of("q", "quiet"), Map.of()), null);
    CompletableFuture.delayedExecutor(4, TimeUnit.SECONDS).execute(() -> gate.complete(null));
    StreamGatewayIT.assertCompleteStream(stream.get(60, TimeUnit.SECONDS), 3);
  }
}
