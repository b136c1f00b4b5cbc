package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.gateway.StreamGateway;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.http.PerUserHook;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.validate.ResponseValidator;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway end to end: real Redis (one server, or a cluster), a real streaming upstream, several
 * gateway instances.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ParameterizedClass
@EnumSource(ValkeyMode.class)
class StreamGatewayIT {

  @RegisterExtension
  final ValkeyExtension redis;

  private static TestUpstream upstream;
  private static SseClient client;
  private RedisClusterCommands<String, String> valkey;
  private GatewayFleet fleet;

  StreamGatewayIT(ValkeyMode mode) {
    redis = new ValkeyExtension(mode);
  }

  /** One upstream per mode: each mode's tests count the calls of the same templates. */
  @BeforeParameterizedClassInvocation
  static void startUpstream() throws Exception {
    upstream = TestUpstream.start();
    client = new SseClient();
  }

  @AfterParameterizedClassInvocation
  static void stopUpstream() throws Exception {
    client.close();
    upstream.close();
  }

  @BeforeEach
  void connect() {
    valkey = redis.commands();
  }

  @AfterEach
  void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  private Map<String, String> env() {
    return GatewayFleet.env(redis.env(), upstream);
  }

  @Test
  void thousandConcurrentIdenticalRequestsAcrossThreeGatewaysMakeOneUpstreamCall() {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("push", TestUpstream.Script.chunks(20, Duration.ofMillis(5)).gatedAt(1, gate, false));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "30s");
    fleet = GatewayFleet.start(3, env);
    String body = SseClient.body(Map.of("prompt", "daily-recommendation", "day", "2026-11-30"),
        Map.of("locale", "de-DE"));

    List<CompletableFuture<List<SseEvent>>> streams = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      streams.add(client.stream(fleet.port(i % 3), "push", body, null));
    }
    // Everyone is connected while the upstream still holds the rest of its response.
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
        .until(() -> fleet.sum(g -> g.metrics().subscribers()) == 1000);
    gate.complete(null);

    CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).orTimeout(2, TimeUnit.MINUTES).join();
    for (CompletableFuture<List<SseEvent>> stream : streams) {
      assertCompleteStream(stream.join(), 20);
    }
    assertThat(upstream.calls("push")).isEqualTo(1);
    assertThat(fleet.sum(g -> g.metrics().upstreamCalls())).isEqualTo(1);
    assertThat(fleet.sum(g -> g.metrics().requests())).isEqualTo(1000);
    assertThat(upstream.bodies()).noneMatch(b -> b.contains("de-DE"));
  }

  @Test
  void lateJoinerGetsTheChunksSoFarThenLiveOnes() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("late", TestUpstream.Script.chunks(10, Duration.ofMillis(5)).gatedAt(5, gate, false));
    fleet = GatewayFleet.start(2, env());
    String body = SseClient.body(Map.of("q", "late"), Map.of());

    try (SseClient.Open first = client.open(fleet.port(0), "late", body, null)) {
      for (int i = 0; i < 5; i++) {
        assertThat(first.next().data()).isEqualTo("chunk-" + i);
      }
      // Joins on the other gateway after 5 chunks: gets them as backfill, then the live rest.
      CompletableFuture<List<SseEvent>> late = client.stream(fleet.port(1), "late", body, null);
      await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(1).metrics().backfilledEvents() == 5);
      gate.complete(null);
      assertCompleteStream(late.get(60, TimeUnit.SECONDS), 10);
      assertThat(first.rest()).extracting(SseEvent::data).startsWith("chunk-5");
    }
    assertThat(upstream.calls("late")).isEqualTo(1);
  }

  @Test
  void lastEventIdResumesRightAfterThatEntryMidStream() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("resume", TestUpstream.Script.chunks(8, Duration.ofMillis(5)).gatedAt(4, gate, false));
    fleet = GatewayFleet.start(2, env());
    String body = SseClient.body(Map.of("q", "resume"), Map.of());

    String lastId;
    try (SseClient.Open first = client.open(fleet.port(0), "resume", body, null)) {
      SseEvent e = null;
      for (int i = 0; i < 3; i++) {
        e = first.next();
      }
      assertThat(e.data()).isEqualTo("chunk-2");
      lastId = e.id();
    }  // the client drops mid-stream ...
    // ... and reconnects to another gateway with the last id it saw.
    CompletableFuture<List<SseEvent>> resumed = client.stream(fleet.port(1), "resume", body, lastId);
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(1).metrics().subscribers() == 1);
    gate.complete(null);
    List<SseEvent> events = resumed.get(60, TimeUnit.SECONDS);
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data))
        .containsExactly("chunk-3", "chunk-4", "chunk-5", "chunk-6", "chunk-7");
    assertThat(events.get(events.size() - 1).event()).isEqualTo("done");
    assertThat(fleet.get(1).metrics().resumes()).isEqualTo(1);
    assertThat(upstream.calls("resume")).isEqualTo(1);
  }

  @Test
  void lastEventIdAfterCompletionReadsTheSnapshotWithoutUpstreamCall() throws Exception {
    upstream.script("snapshot", TestUpstream.Script.chunks(6, Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "60s");
    fleet = GatewayFleet.start(2, env);
    String body = SseClient.body(Map.of("q", "snapshot"), Map.of());

    List<SseEvent> all = client.stream(fleet.port(0), "snapshot", body, null).get(60, TimeUnit.SECONDS);
    assertCompleteStream(all, 6);
    String afterChunk3 = all.get(3).id();
    List<SseEvent> resumed = client.stream(fleet.port(1), "snapshot", body, afterChunk3).get(60, TimeUnit.SECONDS);
    assertThat(resumed.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("chunk-4", "chunk-5");
    assertThat(resumed.get(resumed.size() - 1)).isEqualTo(all.get(all.size() - 1));
    // A new request within the result TTL is served from the snapshot too.
    assertThat(client.stream(fleet.port(1), "snapshot", body, null).get(60, TimeUnit.SECONDS)).isEqualTo(all);
    assertThat(upstream.calls("snapshot")).isEqualTo(1);
  }

  @Test
  void firstClientDisconnectingDoesNotCutOffTheOthers() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("leave", TestUpstream.Script.chunks(12, Duration.ofMillis(5)).gatedAt(3, gate, false));
    fleet = GatewayFleet.start(1, env());
    String body = SseClient.body(Map.of("q", "leave"), Map.of());

    SseClient.Open first = client.open(fleet.port(0), "leave", body, null);
    assertThat(first.next().data()).isEqualTo("chunk-0");
    List<CompletableFuture<List<SseEvent>>> others = IntStream.range(0, 5)
        .mapToObj(i -> client.stream(fleet.port(0), "leave", body, null)).toList();
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(0).metrics().subscribers() == 6);
    first.close();
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(0).metrics().subscribers() == 5);
    gate.complete(null);
    for (CompletableFuture<List<SseEvent>> other : others) {
      assertCompleteStream(other.get(60, TimeUnit.SECONDS), 12);
    }
    assertThat(upstream.calls("leave")).isEqualTo(1);
  }

  @Test
  void theUpstreamCallRunsToCompletionEvenIfEveryClientLeaves() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("orphan", TestUpstream.Script.chunks(6, Duration.ofMillis(5)).gatedAt(2, gate, false));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "60s");
    fleet = GatewayFleet.start(1, env);
    String body = SseClient.body(Map.of("q", "orphan"), Map.of());
    try (SseClient.Open only = client.open(fleet.port(0), "orphan", body, null)) {
      assertThat(only.next().data()).isEqualTo("chunk-0");
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(0).metrics().subscribers() == 0);
    gate.complete(null);
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.get(0).activeUpstreamCalls() == 0);
    assertCompleteStream(client.stream(fleet.port(0), "orphan", body, null).get(60, TimeUnit.SECONDS), 6);
    assertThat(upstream.calls("orphan")).isEqualTo(1);
  }

  @Test
  void schemaViolationIsNotKeptAndTheNextRequestCallsUpstreamAgain() throws Exception {
    String schema = """
        {"type": "object", "required": ["items"],
         "properties": {"items": {"type": "array", "items": {"type": "integer"}}}}""";
    upstream.script("ranked", TestUpstream.Script.of(List.of("{\"items\": ", "\"oops\"", "}"), Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "60s");
    fleet = GatewayFleet.start(2, env, PerUserHook.IDENTITY, ResponseValidator.of("ranked", schema));
    String body = SseClient.body(Map.of("q", "ranked"), Map.of());

    List<SseEvent> invalid = client.stream(fleet.port(0), "ranked", body, null).get(60, TimeUnit.SECONDS);
    assertThat(invalid).noneMatch(SseEvent::chunk);  // nothing invalid is fanned out
    assertThat(invalid).singleElement().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("violates its schema");
    });
    assertThat(fleet.sum(g -> g.metrics().validationFailures())).isEqualTo(1);

    upstream.script("ranked", TestUpstream.Script.of(List.of("{\"items\": ", "[3, 1, 2]", "}"), Duration.ofMillis(1)));
    List<SseEvent> valid = client.stream(fleet.port(1), "ranked", body, null).get(60, TimeUnit.SECONDS);
    assertThat(valid.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("{\"items\": ", "[3, 1, 2]", "}");
    assertThat(upstream.calls("ranked")).isEqualTo(2);
    // ... and the valid one is the snapshot.
    client.stream(fleet.port(0), "ranked", body, null).get(60, TimeUnit.SECONDS);
    assertThat(upstream.calls("ranked")).isEqualTo(2);
  }

  @Test
  void upstreamFailureSendsAnErrorToEverySubscriberAndReleasesTheKey() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("flaky", TestUpstream.Script.chunks(6, Duration.ofMillis(5)).gatedAt(2, gate, false).failingAt(3));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "60s");
    fleet = GatewayFleet.start(2, env);
    String body = SseClient.body(Map.of("q", "flaky"), Map.of());

    List<CompletableFuture<List<SseEvent>>> streams = IntStream.range(0, 6)
        .mapToObj(i -> client.stream(fleet.port(i % 2), "flaky", body, null)).toList();
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.sum(g -> g.metrics().subscribers()) == 6);
    gate.complete(null);
    for (CompletableFuture<List<SseEvent>> stream : streams) {
      List<SseEvent> events = stream.get(60, TimeUnit.SECONDS);
      assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("chunk-0", "chunk-1", "chunk-2");
      assertThat(events.get(events.size() - 1).event()).isEqualTo("error");
    }
    assertThat(fleet.sum(g -> g.metrics().upstreamErrors())).isEqualTo(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> fleet.sum(StreamGateway::activeUpstreamCalls) == 0);
    String lock = "{wg:gw:" + CoalescingKey.of("flaky", new com.fasterxml.jackson.databind.ObjectMapper()
        .valueToTree(Map.of("q", "flaky"))).hex() + "}:lock";
    assertThat(valkey.exists(lock)).isZero();

    upstream.script("flaky", TestUpstream.Script.chunks(6, Duration.ofMillis(1)));
    assertCompleteStream(client.stream(fleet.port(0), "flaky", body, null).get(60, TimeUnit.SECONDS), 6);
    assertThat(upstream.calls("flaky")).isEqualTo(2);
  }

  @Test
  void upstreamErrorStatusReachesTheClientAsAnErrorEvent() throws Exception {
    upstream.script("down", TestUpstream.Script.chunks(1, Duration.ofMillis(1)).answering(503));
    fleet = GatewayFleet.start(1, env());
    List<SseEvent> events = client.stream(fleet.port(0), "down", SseClient.body(Map.of(), Map.of()), null)
        .get(60, TimeUnit.SECONDS);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.event()).isEqualTo("error");
      assertThat(e.data()).contains("answered 503");
    });
  }

  @Test
  void aResponseLongerThanTheStreamCapIsAnError() throws Exception {
    upstream.script("long", TestUpstream.Script.chunks(8, Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.STREAM_CAP, "5");
    fleet = GatewayFleet.start(1, env);
    List<SseEvent> events = client.stream(fleet.port(0), "long", SseClient.body(Map.of(), Map.of()), null)
        .get(60, TimeUnit.SECONDS);
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data))
        .containsExactly("chunk-0", "chunk-1", "chunk-2", "chunk-3", "chunk-4");
    assertThat(events.get(events.size() - 1).data()).contains("more than 5 chunks", "WARMGATE_GATEWAY_STREAM_CAP");
  }

  @Test
  void aSilentUpstreamIsCutOffByTheIdleTimeout() throws Exception {
    CompletableFuture<Void> never = new CompletableFuture<>();
    upstream.script("silent", TestUpstream.Script.chunks(4, Duration.ofMillis(1)).gatedAt(2, never, false));
    Map<String, String> env = env();
    env.put(GatewayConfig.UPSTREAM_IDLE_TIMEOUT, "500ms");
    fleet = GatewayFleet.start(1, env);
    List<SseEvent> events = client.stream(fleet.port(0), "silent", SseClient.body(Map.of(), Map.of()), null)
        .get(60, TimeUnit.SECONDS);
    assertThat(events.stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("chunk-0", "chunk-1");
    assertThat(events.get(events.size() - 1).event()).isEqualTo("error");
    assertThat(fleet.get(0).metrics().upstreamErrors()).isEqualTo(1);
    never.complete(null);
  }

  @Test
  void burstFlagKeepsTheResultLongerThanTheNormalTtl() throws Exception {
    upstream.script("burst", TestUpstream.Script.chunks(3, Duration.ofMillis(1)));
    Map<String, String> env = env();
    env.put(GatewayConfig.RESULT_TTL, "300ms");
    env.put(GatewayConfig.BURST_RESULT_TTL, "30s");
    fleet = GatewayFleet.start(1, env);
    String body = SseClient.body(Map.of("q", "burst"), Map.of());
    String state = "{wg:gw:" + CoalescingKey.of("burst", new com.fasterxml.jackson.databind.ObjectMapper()
        .valueToTree(Map.of("q", "burst"))).hex() + "}:state";

    // No burst: the snapshot lives 300 ms, then the next request calls the upstream again.
    assertCompleteStream(client.stream(fleet.port(0), "burst", body, null).get(60, TimeUnit.SECONDS), 3);
    assertThat(valkey.pttl(state)).isLessThanOrEqualTo(300L);  // -2 once already expired
    await().atMost(Duration.ofSeconds(10)).until(() -> valkey.exists(state) == 0);
    assertCompleteStream(client.stream(fleet.port(0), "burst", body, null).get(60, TimeUnit.SECONDS), 3);
    assertThat(upstream.calls("burst")).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> valkey.exists(state) == 0);

    // Burst flag up (over HTTP, as the push sender does): the snapshot lives 30 s.
    var raise = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/burst/burst?ttl=1m"))
        .header("Authorization", "Bearer " + GatewayFleet.BURST_TOKEN)
        .PUT(HttpRequest.BodyPublishers.noBody()).build());
    assertThat(raise.statusCode()).isEqualTo(204);
    assertCompleteStream(client.stream(fleet.port(0), "burst", body, null).get(60, TimeUnit.SECONDS), 3);
    assertThat(valkey.pttl(state)).isGreaterThan(10_000L);
    assertCompleteStream(client.stream(fleet.port(0), "burst", body, null).get(60, TimeUnit.SECONDS), 3);
    assertThat(upstream.calls("burst")).isEqualTo(3);

    // The flag can equally be a plain Valkey key, global for every template.
    var lower = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/burst/burst"))
        .header("Authorization", "Bearer " + GatewayFleet.BURST_TOKEN)
        .DELETE().build());
    assertThat(lower.statusCode()).isEqualTo(204);
    valkey.del(state);
    valkey.psetex("wg:gw:burst", 60_000, "1");
    assertCompleteStream(client.stream(fleet.port(0), "burst", body, null).get(60, TimeUnit.SECONDS), 3);
    assertThat(valkey.pttl(state)).isGreaterThan(10_000L);
    valkey.del("wg:gw:burst");
  }

  @Test
  void perUserVariablesDoNotSplitCoalescingAndAreAppliedAfterwards() throws Exception {
    CompletableFuture<Void> gate = new CompletableFuture<>();
    upstream.script("personal", TestUpstream.Script.of(List.of("a", "b", "c"), Duration.ofMillis(5)).gatedAt(1, gate, false));
    PerUserHook upperForGerman = (template, perUser, event, data) -> {
      if ("xx".equals(perUser.path("locale").asText())) {
        throw new IllegalArgumentException("unknown locale xx");
      }
      return "de".equals(perUser.path("locale").asText()) ? data.toUpperCase(java.util.Locale.ROOT) : data;
    };
    fleet = GatewayFleet.start(1, env(), upperForGerman, null);

    CompletableFuture<List<SseEvent>> en = client.stream(fleet.port(0), "personal",
        SseClient.body(Map.of("q", "same"), Map.of("locale", "en")), null);
    CompletableFuture<List<SseEvent>> de = client.stream(fleet.port(0), "personal",
        SseClient.body(Map.of("q", "same"), Map.of("locale", "de")), null);
    CompletableFuture<List<SseEvent>> broken = client.stream(fleet.port(0), "personal",
        SseClient.body(Map.of("q", "same"), Map.of("locale", "xx")), null);
    // The broken one leaves at the first chunk; the other two wait at the gate.
    await().atMost(Duration.ofSeconds(30)).until(() ->
        fleet.get(0).metrics().requests() == 3 && fleet.get(0).metrics().subscribers() == 2);
    gate.complete(null);
    assertThat(en.get(60, TimeUnit.SECONDS).stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("a", "b", "c");
    assertThat(de.get(60, TimeUnit.SECONDS).stream().filter(SseEvent::chunk).map(SseEvent::data)).containsExactly("A", "B", "C");
    assertThat(broken.get(60, TimeUnit.SECONDS)).singleElement()
        .satisfies(e -> assertThat(e.data()).contains("per-user hook failed", "unknown locale xx"));
    assertThat(upstream.calls("personal")).isEqualTo(1);
  }

  @Test
  void badRequestsAreRefusedWithTheReason() throws Exception {
    fleet = GatewayFleet.start(1, env());
    var response = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/streams/ok"))
        .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString("{\"shared\": [1]}")).build());
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).contains("must be a JSON object, not ARRAY");
    var badId = client.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + fleet.port(0) + "/v1/streams/ok"))
        .header("Authorization", "Bearer " + GatewayFleet.STREAM_TOKEN)
        .header("Last-Event-ID", "yesterday")
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build());
    assertThat(badId.statusCode()).isEqualTo(400);
    assertThat(badId.body()).contains("yesterday").contains("<milliseconds>-<sequence>");
  }

  /** Chunks chunk-0 .. chunk-(n-1) once each, in order, with increasing ids, then done. */
  static void assertCompleteStream(List<SseEvent> events, int chunks) {
    assertThat(events).hasSize(chunks + 1);
    for (int i = 0; i < chunks; i++) {
      assertThat(events.get(i).data()).isEqualTo("chunk-" + i);
      if (i > 0) {
        assertThat(entryId(events.get(i))).isGreaterThan(entryId(events.get(i - 1)));
        assertThat(run(events.get(i))).isEqualTo(run(events.get(i - 1)));
      }
    }
    assertThat(events.get(chunks).event()).isEqualTo("done");
  }

  /** The run an event's id names ({@code <run>:<entry>}). */
  static String run(SseEvent event) {
    return event.id().substring(0, event.id().indexOf(':'));
  }

  /** The stream entry an event's id names. */
  static io.warmgate.gateway.stream.EntryId entryId(SseEvent event) {
    return io.warmgate.gateway.stream.EntryId.parse(event.id().substring(event.id().indexOf(':') + 1));
  }
}
