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
import io.warmgate.contract.Durations;
import io.warmgate.gateway.auth.ClientAuth;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.metrics.GatewayMetrics;
import io.warmgate.gateway.stream.Coalescer;
import io.warmgate.gateway.stream.EntryId;
import io.warmgate.gateway.stream.RunStore;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The gateway's HTTP surface.
 *
 * <ul>
 *   <li>{@code POST /v1/streams/{template}} with {@code {"shared": {...}, "perUser": {...}}} and
 *       optional {@code Last-Event-ID} → {@code text/event-stream}; needs a stream token
 *   <li>{@code PUT|DELETE /v1/burst[/{template}][?ttl=30s]} raises or lowers a burst flag; needs
 *       a burst token, and {@code ttl} at most the configured cap
 *   <li>{@code GET /v1/metrics} → the counters as JSON; {@code GET /healthz} → {@code ok}; no token
 * </ul>
 * Bad requests get a JSON {@code {"error": ...}} saying what was wrong and how to fix it; a
 * missing or unknown token 401, another role's token 403, a new key beyond the cap 429 with
 * {@code Retry-After}. The token is checked before the body is read.
 */
public final class GatewayRoutes implements Handler<HttpServerRequest> {

  /** Largest accepted request body. */
  public static final int MAX_BODY_BYTES = 64 * 1024;
  private static final String STREAMS = "/v1/streams/";
  private static final String BURST = "/v1/burst";
  /** Seconds a client refused for the key cap is asked to wait: about one short response. */
  static final int RETRY_AFTER_SECONDS = 2;
  private static final String REALM = "Bearer realm=\"warmgate-stream-gateway\"";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Vertx vertx;
  private final Coalescer coalescer;
  private final RunStore store;
  private final GatewayMetrics metrics;
  private final PerUserHook hook;
  private final Duration burstFlagTtl;
  private final Supplier<String> prometheus;
  private final ClientAuth auth;
  private final Duration burstFlagMaxTtl;
  private final Duration slowClientTimeout;
  private final int maxKeys;
  private final Set<SseSubscriber> streams = ConcurrentHashMap.newKeySet();

  /**
   * Creates the routes.
   *
   * @param prometheus the meters in the Prometheus text format for {@code GET /metrics}, or null
   *     to serve no such route
   */
  public GatewayRoutes(Vertx vertx, Coalescer coalescer, RunStore store, GatewayMetrics metrics,
      PerUserHook hook, ClientAuth auth, GatewayConfig config, Supplier<String> prometheus) {
    this.prometheus = prometheus;
    this.auth = auth;
    this.burstFlagTtl = config.burstFlagTtl();
    this.burstFlagMaxTtl = config.burstFlagMaxTtl();
    this.slowClientTimeout = config.slowClientTimeout();
    this.maxKeys = config.maxKeys();
    this.vertx = vertx;
    this.coalescer = coalescer;
    this.store = store;
    this.metrics = metrics;
    this.hook = hook;
  }

  /** Sends a keep-alive comment on every open stream that wrote nothing since the last call. */
  public void keepAlive() {
    streams.forEach(SseSubscriber::keepAlive);
  }

  @Override
  public void handle(HttpServerRequest request) {
    String path = request.path();
    HttpMethod method = request.method();
    if (path.startsWith(STREAMS) && method == HttpMethod.POST) {
      if (admitted(request, ClientAuth.Role.STREAM)) {
        readBody(request, body -> stream(request, path.substring(STREAMS.length()), body));
      }
    } else if ((path.equals(BURST) || path.startsWith(BURST + "/"))
        && (method == HttpMethod.PUT || method == HttpMethod.DELETE)) {
      if (admitted(request, ClientAuth.Role.BURST)) {
        burst(request, path.equals(BURST) ? null : path.substring(BURST.length() + 1));
      }
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

  /** Answers 401 or 403 unless the request's bearer token admits it to {@code role}. */
  private boolean admitted(HttpServerRequest request, ClientAuth.Role role) {
    ClientAuth.Decision decision = auth.check(role, request.getHeader("Authorization"));
    if (decision == ClientAuth.Decision.ADMITTED) {
      return true;
    }
    metrics.authRefused();
    HttpServerResponse response = request.response();
    String what = role == ClientAuth.Role.STREAM ? "a stream token" : "a burst token";
    switch (decision) {
      case MISSING -> {
        response.putHeader("WWW-Authenticate", REALM);
        error(response, 401, request.method() + " " + request.path() + " needs "
            + "Authorization: Bearer <token> with " + what + " of this gateway");
      }
      case INVALID -> {
        response.putHeader("WWW-Authenticate", REALM + ", error=\"invalid_token\"");
        error(response, 401, "the bearer token is not one this gateway accepts: send " + what
            + " (a rotated token is accepted once the gateway has read its new Secret)");
      }
      default -> error(response, 403, role == ClientAuth.Role.STREAM
          ? "this token may raise the burst flag but not open streams: send a stream token"
          : auth.burstClosed()
              ? "no token may set the burst flag over HTTP on this gateway: configure burst tokens ("
                  + GatewayConfig.BURST_TOKENS_FILE + "), or set the flag in Valkey directly"
              : "this token may open streams but not set the burst flag: send a burst token");
    }
    return false;
  }

  private void stream(HttpServerRequest request, String template, Buffer body) {
    HttpServerResponse response = request.response();
    CoalescingKey key;
    JsonNode perUser;
    EventId after = new EventId("", EntryId.ZERO);
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
        after = EventId.parse(lastEventId);
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
    SseSubscriber subscriber = new SseSubscriber(vertx.getOrCreateContext(), request, template,
        perUser, hook, metrics, after, slowClientTimeout, gone -> {
          streams.remove(gone);
          metrics.subscriberClosed();
          coalescer.unsubscribe(key, gone);
        });
    // Entries reach the subscriber on this context, after this handler: the headers go first.
    if (!coalescer.subscribe(key, shared, subscriber)) {
      metrics.keyRefused();
      response.putHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
      error(response, 429, "this gateway streams as many distinct responses at once as it may ("
          + maxKeys + ", " + GatewayConfig.MAX_KEYS + "); retry in " + RETRY_AFTER_SECONDS
          + " s, or through another replica");
      return;
    }
    metrics.request();
    metrics.subscriberOpened();
    streams.add(subscriber);
    response.setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no")
        .putHeader("X-Coalescing-Key", key.hex());
    response.closeHandler(v -> subscriber.disconnected());
    // Send the headers now: clients and proxies see the stream open before the first chunk.
    response.write(": coalescing " + key.hex() + "\n\n");
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
        if (ttl.compareTo(burstFlagMaxTtl) > 0) {
          throw new IllegalArgumentException("ttl=" + ttlParam + " is longer than the longest burst "
              + "flag this gateway raises, " + Durations.format(burstFlagMaxTtl) + " ("
              + GatewayConfig.BURST_FLAG_MAX_TTL + "): ask for at most that, or raise the cap");
        }
        if (ttl.toMillis() < 1) {
          throw new IllegalArgumentException("ttl=" + ttlParam + " would not raise the flag: give a "
              + "duration such as 5m, or send DELETE to lower it");
        }
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
        .put("queuedBytes", metrics.queuedBytes())
        .put("backfilledEvents", metrics.backfilledEvents())
        .put("resumes", metrics.resumes())
        .put("authRefusals", metrics.authRefusals())
        .put("keysRefused", metrics.keysRefused())
        .put("slowClientsDropped", metrics.slowClientsDropped());
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
