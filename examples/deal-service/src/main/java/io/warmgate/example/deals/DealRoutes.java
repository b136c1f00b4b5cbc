package io.warmgate.example.deals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.warmgate.agent.CacheLoadException;
import io.warmgate.agent.TieredCache;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** HTTP routes: {@code GET /deals/{id}}, {@code GET /healthz}, {@code GET /info}, {@code GET /metrics}. */
final class DealRoutes implements HttpHandler {

  private static final Logger log = LoggerFactory.getLogger(DealRoutes.class);
  private static final String DEALS = "/deals/";

  private final TieredCache<?> cache;
  private final ObjectMapper json;
  private final PrometheusMeterRegistry metrics;
  private final DealSchema schema;
  private final Map<String, String> health;

  /**
   * @param podName the pod this process serves ({@code WARMGATE_POD_NAME}), or empty; {@code /healthz}
   *     names it so that a prober knows which process answered on a port
   */
  DealRoutes(TieredCache<?> cache, ObjectMapper json, PrometheusMeterRegistry metrics, DealSchema schema,
      String podName) {
    this.cache = cache;
    this.json = json;
    this.metrics = metrics;
    this.schema = schema;
    this.health = podName.isEmpty() ? Map.of("status", "ok") : Map.of("status", "ok", "pod", podName);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod())) {
        send(exchange, 405, error("only GET is served"));
        return;
      }
      String path = exchange.getRequestURI().getRawPath();
      if (path.startsWith(DEALS)) {
        deal(exchange, URLDecoder.decode(path.substring(DEALS.length()), StandardCharsets.UTF_8));
      } else if (path.equals("/healthz")) {
        send(exchange, 200, health);
      } else if (path.equals("/info")) {
        send(exchange, 200, Map.of("cache", cache.name(), "schemaVersion", schema.name().toLowerCase(),
            "schemaHash", cache.schemaHash()));
      } else if (path.equals("/metrics")) {
        byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
      } else {
        send(exchange, 404, error("no route " + path + ": try GET /deals/{id}"));
      }
    }
  }

  private void deal(HttpExchange exchange, String id) throws IOException {
    Object deal;
    try {
      deal = cache.get(id);
    } catch (IllegalArgumentException e) {
      send(exchange, 400, error(e.getMessage()));
      return;
    } catch (CacheLoadException e) {
      log.warn("deal {} could not be loaded: {}", id, e.getMessage());
      send(exchange, 503, error(e.getMessage()));
      return;
    }
    if (deal == null) {
      send(exchange, 404, error("no deal with id '" + id + "'"));
    } else {
      send(exchange, 200, deal);
    }
  }

  private static Map<String, String> error(String message) {
    return Map.of("error", message);
  }

  private void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
