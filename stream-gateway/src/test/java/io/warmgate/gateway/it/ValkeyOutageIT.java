package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Valkey (the server, or every node of the cluster) dies mid-stream: clients get an error event in
 * bounded time, and service resumes after.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ParameterizedClass
@EnumSource(ValkeyMode.class)
class ValkeyOutageIT {

  @RegisterExtension
  final ValkeyExtension valkey;

  ValkeyOutageIT(ValkeyMode mode) {
    valkey = new ValkeyExtension(mode);
  }

  @Test
  void clientsGetAnErrorWhenValkeyDiesAndTheNextRequestWorksOnceItIsBack() throws Exception {
    try (TestUpstream upstream = TestUpstream.start();
        SseClient client = new SseClient();
        GatewayFleet fleet = GatewayFleet.start(1, GatewayFleet.env(valkey.env(), upstream))) {
      CompletableFuture<Void> gate = new CompletableFuture<>();
      upstream.script("outage", TestUpstream.Script.chunks(4, Duration.ofMillis(1)).gatedAt(2, gate, true));
      String body = SseClient.body(Map.of("q", "outage"), Map.of());
      CompletableFuture<List<SseEvent>> stream = client.stream(fleet.port(0), "outage", body, null);
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(0).metrics().subscribers() == 1);

      valkey.stop();
      List<SseEvent> events = stream.get(90, TimeUnit.SECONDS);
      assertThat(events.get(events.size() - 1).event()).isEqualTo("error");
      gate.complete(null);

      valkey.start();  // empty, same ports
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
          StreamGatewayIT.assertCompleteStream(client.stream(fleet.port(0), "outage", body, null)
              .get(60, TimeUnit.SECONDS), 4));
    }
  }
}
