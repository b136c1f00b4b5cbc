package io.warmgate.operator;

import static io.warmgate.operator.http.HttpResponses.respond;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.warmgate.operator.decision.GateHandler;
import io.warmgate.operator.http.ServerTimeouts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Serves {@code /healthz} (liveness), {@code /readyz} (readiness), {@code /metrics}
 * (Prometheus text format), {@code /plan/} (the release plan, {@link
 * io.warmgate.operator.plan.PlanHandler}), {@code /gate/} (the warm decision for an Argo
 * analysis, {@link io.warmgate.operator.decision.GateHandler}) and
 * {@code /flagger/confirm-promotion} (Flagger's webhook,
 * {@link io.warmgate.operator.decision.FlaggerHandler}) on one port.
 */
final class HttpEndpoints implements AutoCloseable {

  private final HttpServer server;

  HttpEndpoints(int port, BooleanSupplier live, BooleanSupplier ready, Supplier<String> metrics,
      HttpHandler plan, HttpHandler gate, HttpHandler flagger) throws IOException {
    ServerTimeouts.apply();
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "warmgate-http");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/healthz", exchange -> probe(exchange, live));
    server.createContext("/readyz", exchange -> probe(exchange, ready));
    server.createContext("/metrics", exchange ->
        respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.get()));
    server.createContext("/plan/", plan);
    server.createContext(GateHandler.PREFIX, gate);
    server.createContext("/flagger/", flagger);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange exchange, BooleanSupplier check) throws IOException {
    boolean ok = check.getAsBoolean();
    respond(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "not ok\n");
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
