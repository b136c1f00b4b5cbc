package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.gateway.config.GatewayConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway holding a run's lock dies mid-stream: another gateway takes the run over,
 * re-requests the upstream and skips the chunks already in the stream, so every client gets each
 * chunk exactly once.
 *
 * <p>Two variants: the holder is a separate JVM killed with SIGKILL (a real crash), and the holder
 * is an instance in this JVM, with its own event loops, Valkey client and threads, hard-stopped
 * (all of them closed at once, nothing released in Valkey). Each on one server and on a cluster.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ParameterizedClass
@EnumSource(ValkeyMode.class)
class TakeoverIT {

  @RegisterExtension
  final ValkeyExtension valkey;

  private TestUpstream upstream;
  private GatewayFleet fleet;
  private SseClient client;

  TakeoverIT(ValkeyMode mode) {
    valkey = new ValkeyExtension(mode);
  }

  @AfterEach
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    if (client != null) {
      client.close();
    }
    if (upstream != null) {
      upstream.close();
    }
  }

  @Test
  void lockHolderProcessKilledMidStreamLeavesNoDuplicateAndNoMissingChunk() throws Exception {
    Map<String, String> env = start();
    fleet = GatewayFleet.start(2, env);
    try (GatewayProcess holder = GatewayProcess.start(env, "holder")) {
      killHolderMidStream("crash", holder.port(), () -> {
        try {
          holder.kill();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }, 0, 1);
    }
  }

  @Test
  void lockHolderInstanceHardStoppedMidStreamLeavesNoDuplicateAndNoMissingChunk() throws Exception {
    Map<String, String> env = start();
    fleet = GatewayFleet.start(3, env);
    killHolderMidStream("hard-stop", fleet.port(2), () -> fleet.kill(2), 0, 1);
    assertThat(fleet.get(2).metrics().upstreamCalls()).isEqualTo(1);
  }

  @Test
  void lockHolderClosedGracefullyHandsTheRunOver() throws Exception {
    Map<String, String> env = start();
    env.put(GatewayConfig.LOCK_TTL, "1m");  // only the hand-over, not an expiry, can free the lock
    fleet = GatewayFleet.start(3, env);
    killHolderMidStream("hand-over", fleet.port(2), () -> fleet.get(2).close(), 0, 1);
  }

  private Map<String, String> start() throws Exception {
    upstream = TestUpstream.start();
    client = new SseClient();
    Map<String, String> env = GatewayFleet.env(valkey.env(), upstream);
    env.put(GatewayConfig.LOCK_TTL, "2s");
    env.put(GatewayConfig.RESULT_TTL, "60s");
    return env;
  }

  /**
   * The gateway on {@code holderPort} serves the first request, so it wins the lock and calls the
   * upstream, whose first call hangs after 4 chunks; clients join on gateways {@code a} and
   * {@code b} of the fleet; the holder dies; one of the others takes over.
   */
  private void killHolderMidStream(String template, int holderPort, Runnable kill, int a, int b)
      throws Exception {
    CompletableFuture<Void> firstCallHangs = new CompletableFuture<>();
    upstream.script(template, TestUpstream.Script.chunks(10, Duration.ofMillis(5))
        .gatedAt(4, firstCallHangs, true));
    String body = SseClient.body(Map.of("q", template), Map.of());

    SseClient.Open onHolder = client.open(holderPort, template, body, null);
    String lastSeen = null;
    for (int i = 0; i < 4; i++) {
      SseEvent event = onHolder.next();
      assertThat(event.data()).isEqualTo("chunk-" + i);
      lastSeen = event.id();
    }
    List<CompletableFuture<List<SseEvent>>> others = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      others.add(client.stream(fleet.port(i % 2 == 0 ? a : b), template, body, null));
    }
    await().atMost(Duration.ofSeconds(30)).until(() ->
        fleet.get(a).metrics().subscribers() == 2 && fleet.get(b).metrics().subscribers() == 2);

    kill.run();

    // The client of the dead gateway reconnects elsewhere with the last id it saw.
    List<SseEvent> resumed = client.stream(fleet.port(a), template, body, lastSeen).get(90, TimeUnit.SECONDS);
    assertThat(resumed.stream().filter(SseEvent::chunk).map(SseEvent::data))
        .containsExactly("chunk-4", "chunk-5", "chunk-6", "chunk-7", "chunk-8", "chunk-9");
    for (CompletableFuture<List<SseEvent>> other : others) {
      StreamGatewayIT.assertCompleteStream(other.get(90, TimeUnit.SECONDS), 10);
    }
    assertThat(upstream.calls(template)).isEqualTo(2);
    assertThat(fleet.get(a).metrics().takeovers() + fleet.get(b).metrics().takeovers()).isEqualTo(1);
    try {
      onHolder.close();
    } catch (Exception e) {
      // its gateway is gone
    }
  }
}
