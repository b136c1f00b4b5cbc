package io.warmgate.gateway.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.stream.Coalescer;
import io.warmgate.gateway.stream.EntryId;
import io.warmgate.gateway.stream.RunStore;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gateway's HTTP surface.
 *
 * <ul>
 *   <li>{@code POST /v1/streams/{template}} with {@code {"shared": {...}, "perUser": {...}}} and
 *       optional {@code Last-Event-ID} → {@code text/event-stream}
 *   <li>{@code PUT|DELETE /v1/burst[/{template}][?ttl=30s]} raises or lowers a burst flag
 *   <li>{@code GET /v1/metrics} → the counters as JSON; {@code GET /healthz} → {@code ok}
 * </ul>
 * Bad requests get a JSON {@code {"error": ...}} saying what was wrong and how to fix it.
 */
public final class GatewayRoutes implements Handler<HttpServerRequest> {

  /** Largest accepted request body. */
  public static final int MAX_BODY_BYTES = 64 * 1024;
  private static final String STREAMS = "/v1/streams/";
  private static final String BURST = "/v1/burst";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Vertx vertx;
  private final Coalescer coalescer;
  private final RunStore store;
  private final GatewayMetrics metrics;
  private final PerUserHook hook;
  private final Duration burstFlagTtl;
  private final Supplier<String> prometheus;

  /**
   * Creates the routes.
   *
   * @param prometheus the meters in the Prometheus text format for {@code GET /metrics}, or null
   *     to serve no such route
   */
  public GatewayRoutes(Vertx vertx, Coalescer coalescer, RunStore store, GatewayMetrics metrics,
      PerUserHook hook, Duration burstFlagTtl, Supplier<String> prometheus) {
    this.prometheus = prometheus;
    this.vertx = vertx;
    this.coalescer = coalescer;
    this.store = store;
    this.metrics = metrics;
    this.hook = hook;
    this.burstFlagTtl = burstFlagTtl;
  }

  @Override
  public void handle(HttpServerRequest request) {
    String path = request.path();
    HttpMethod method = request.method();
    if (path.startsWith(STREAMS) && method == HttpMethod.POST) {
      readBody(request, body -> stream(request, path.substring(STREAMS.length()), body));
    } else if ((path.equals(BURST) || path.startsWith(BURST + "/"))
        && (method == HttpMethod.PUT || method == HttpMethod.DELETE)) {
      burst(request, path.equals(BURST) ? null : path.substring(BURST.length() + 1));
    } else if (path.equals("/v1/metrics") && method == HttpMethod.GET) {
      metricsJson(request.response());
    } else if (path.equals("/metrics") && method == HttpMethod.GET && prometheus != null) {
      request.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
          .end(prometheus.get());
    } else if (path.equals("/healthz") && method == HttpMethod.GET) {
      request.response().putHeader("Content-Type", "text/plain").end("ok\n");
    } else {
      error(request.response(), 404, method + " " + path + " does not exist: use POST "
          + STREAMS + "{template}, PUT|DELETE " + BURST + "[/{template}] or GET /v1/metrics");
    }
  }

  private void stream(HttpServerRequest request, String template, Buffer body) {
    HttpServerResponse response = request.response();
    CoalescingKey key;
    JsonNode perUser;
    EntryId after = EntryId.ZERO;
    JsonNode shared;
    try {
      JsonNode root = body.length() == 0 ? JSON.createObjectNode() : JSON.readTree(body.getBytes());
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException("the body must be a JSON object: "
            + "{\"shared\": {...}, \"perUser\": {...}}");
      }
      shared = objectOrEmpty(root.path("shared"));
      perUser = objectOrEmpty(root.path("perUser"));
      if (!perUser.isObject()) {
        throw new IllegalArgumentException("\"perUser\" must be a JSON object, not " + perUser.getNodeType());
      }
      key = CoalescingKey.of(template, shared);
      String lastEventId = request.getHeader("Last-Event-ID");
      if (lastEventId != null && !lastEventId.isBlank()) {
        after = EntryId.parse(lastEventId);
        metrics.resume();
      }
    } catch (JsonProcessingException e) {
      error(response, 400, "the body is not valid JSON: " + e.getOriginalMessage());
      return;
    } catch (IOException e) {
      error(response, 400, "cannot read the body: " + e.getMessage());
      return;
    } catch (IllegalArgumentException e) {
      error(response, 400, e.getMessage());
      return;
    }
    metrics.request();
    metrics.subscriberOpened();
    response.setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no")
        .putHeader("X-Coalescing-Key", key.hex());
    SseSubscriber subscriber = new SseSubscriber(vertx.getOrCreateContext(), response, template,
        perUser, hook, metrics, after, gone -> {
          metrics.subscriberClosed();
          coalescer.unsubscribe(key, gone);
        });
    response.closeHandler(v -> subscriber.disconnected());
    // Send the headers now: clients and proxies see the stream open before the first chunk.
    response.write(": coalescing " + key.hex() + "\n\n");
    coalescer.subscribe(key, shared, subscriber);
  }

  /** Absent and {@code null} both mean "no variables". */
  private static JsonNode objectOrEmpty(JsonNode node) {
    return node.isMissingNode() || node.isNull() ? JSON.createObjectNode() : node;
  }

  private void burst(HttpServerRequest request, String template) {
    HttpServerResponse response = request.response();
    Duration ttl = burstFlagTtl;
    try {
      if (template != null) {
        CoalescingKey.requireTemplate(template);
      }
      String ttlParam = request.getParam("ttl");
      if (ttlParam != null) {
        ttl = GatewayConfig.parseDuration("ttl", ttlParam);
      }
    } catch (IllegalArgumentException e) {
      error(response, 400, e.getMessage());
      return;
    }
    var done = request.method() == HttpMethod.PUT ? store.raiseBurst(template, ttl) : store.clearBurst(template);
    var context = vertx.getOrCreateContext();
    done.whenComplete((v, e) -> context.runOnContext(x -> {
      if (e != null) {
        error(response, 503, "cannot reach Valkey to set the burst flag: " + e.getMessage());
      } else {
        response.setStatusCode(204).end();
      }
    }));
  }

  private void metricsJson(HttpServerResponse response) {
    ObjectNode node = JSON.createObjectNode()
        .put("requests", metrics.requests())
        .put("upstreamCalls", metrics.upstreamCalls())
        .put("upstreamErrors", metrics.upstreamErrors())
        .put("validationFailures", metrics.validationFailures())
        .put("takeovers", metrics.takeovers())
        .put("coalesceRatio", metrics.coalesceRatio())
        .put("subscribers", metrics.subscribers())
        .put("backfilledEvents", metrics.backfilledEvents())
        .put("resumes", metrics.resumes());
    send(response, 200, node);
  }

  private void readBody(HttpServerRequest request, Handler<Buffer> then) {
    Buffer body = Buffer.buffer();
    AtomicBoolean tooLarge = new AtomicBoolean();
    request.handler(chunk -> {
      if (tooLarge.get()) {
        return;
      }
      if (body.length() + chunk.length() > MAX_BODY_BYTES) {
        tooLarge.set(true);
        error(request.response(), 413, "the request body is larger than " + MAX_BODY_BYTES
            + " bytes: send only the template's variables");
        return;
      }
      body.appendBuffer(chunk);
    });
    request.endHandler(v -> {
      if (!tooLarge.get()) {
        then.handle(body);
      }
    });
  }

  private static void error(HttpServerResponse response, int status, String message) {
    if (!response.ended()) {
      send(response, status, JSON.createObjectNode().put("error", message));
    }
  }

  private static void send(HttpServerResponse response, int status, JsonNode body) {
    try {
      response.setStatusCode(status).putHeader("Content-Type", "application/json")
          .end(JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a Jackson tree always serializes", e);
    }
  }
}
