package io.warmgate.gateway.it;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * A real local streaming HTTP server standing in for an expensive upstream (an LLM): for
 * {@code POST /v1/templates/{template}/stream} it answers {@code text/event-stream} following the
 * template's {@link Script}, and counts calls.
 */
public final class TestUpstream implements AutoCloseable {

  /**
   * How the upstream answers one template.
   *
   * @param chunks the data of each event, in order
   * @param interval pause before each event
   * @param gateAt before this event index, wait for {@code gate} (-1: never)
   * @param gate completed by the test to let the response go on
   * @param gateFirstCallOnly only the first call waits at the gate (later calls stream freely)
   * @param failAt before this index, reset the connection (-1: never)
   * @param status HTTP status; not 200 answers with a body and no events
   * @param raw true to write each of {@code chunks} verbatim instead of as one {@code data:} event
   */
  public record Script(List<String> chunks, Duration interval, int gateAt,
      CompletableFuture<Void> gate, boolean gateFirstCallOnly, int failAt, int status, boolean raw) {

    /** {@code n} events {@code chunk-0 .. chunk-(n-1)}, {@code interval} apart. */
    public static Script chunks(int n, Duration interval) {
      return of(IntStream.range(0, n).mapToObj(i -> "chunk-" + i).toList(), interval);
    }

    /** The given events, {@code interval} apart. */
    public static Script of(List<String> chunks, Duration interval) {
      return new Script(chunks, interval, -1, null, false, -1, 200, false);
    }

    /** Writes each of {@code writes} as it is (a malformed or hostile upstream), {@code interval} apart. */
    public static Script raw(List<String> writes, Duration interval) {
      return new Script(writes, interval, -1, null, false, -1, 200, true);
    }

    /** Waits before event {@code index} until the returned gate completes. */
    public Script gatedAt(int index, CompletableFuture<Void> gate, boolean firstCallOnly) {
      return new Script(chunks, interval, index, gate, firstCallOnly, failAt, status, raw);
    }

    /** Resets the connection before event {@code index}. */
    public Script failingAt(int index) {
      return new Script(chunks, interval, gateAt, gate, gateFirstCallOnly, index, status, raw);
    }

    /** Answers {@code status} without events. */
    public Script answering(int status) {
      return new Script(chunks, interval, gateAt, gate, gateFirstCallOnly, failAt, status, raw);
    }
  }

  private final Vertx vertx;
  private final HttpServer server;
  private final Map<String, Script> scripts = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final Semaphore capacity;

  private TestUpstream(int concurrency) throws Exception {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    capacity = new Semaphore(concurrency);
    server = vertx.createHttpServer().requestHandler(this::handle).listen(0)
        .await(30, TimeUnit.SECONDS);
  }

  /** Starts an upstream with unlimited concurrency. */
  public static TestUpstream start() throws Exception {
    return new TestUpstream(Integer.MAX_VALUE);
  }

  /**
   * Starts an upstream that streams at most {@code concurrency} responses at once; further
   * calls queue, like a GPU-bound model server.
   */
  public static TestUpstream withConcurrency(int concurrency) throws Exception {
    return new TestUpstream(concurrency);
  }

  /** The URL template for {@code WARMGATE_GATEWAY_UPSTREAM_URL}. */
  public String urlTemplate() {
    return "http://127.0.0.1:" + server.actualPort() + "/v1/templates/{template}/stream";
  }

  /** The URL of {@code template}, for calling the upstream directly. */
  public String url(String template) {
    return urlTemplate().replace("{template}", template);
  }

  /** Sets how {@code template} is answered. */
  public void script(String template, Script script) {
    scripts.put(template, script);
  }

  /** Calls received for {@code template}. */
  public int calls(String template) {
    AtomicInteger n = calls.get(template);
    return n == null ? 0 : n.get();
  }

  /** Request bodies received, in order. */
  public List<String> bodies() {
    return bodies;
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private void handle(HttpServerRequest request) {
    String path = request.path();
    String template = path.replaceFirst("^/v1/templates/([^/]+)/stream$", "$1");
    request.body().onSuccess(body -> {
      bodies.add(body.toString());
      int call = calls.computeIfAbsent(template, t -> new AtomicInteger()).incrementAndGet();
      Script script = scripts.get(template);
      HttpServerResponse response = request.response();
      if (script == null) {
        response.setStatusCode(404).end("no script for template " + template);
        return;
      }
      if (script.status() != 200) {
        response.setStatusCode(script.status()).end("scripted failure");
        return;
      }
      vertx.<Void>executeBlocking(() -> {
        capacity.acquire();
        return null;
      }, false).onSuccess(v -> {
        response.setChunked(true).putHeader("Content-Type", "text/event-stream");
        response.write(": generating\n\n");
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
          if (released.compareAndSet(false, true)) {
            capacity.release();
          }
        };
        response.closeHandler(x -> release.run());
        response.endHandler(x -> release.run());
        next(response, script, call, 0);
      });
    });
  }

  private void next(HttpServerResponse response, Script script, int call, int index) {
    if (response.closed() || response.ended()) {
      return;
    }
    if (index == script.failAt()) {
      response.reset();
      return;
    }
    if (index == script.chunks().size()) {
      response.end();
      return;
    }
    if (index == script.gateAt() && script.gate() != null && !script.gate().isDone()
        && (call == 1 || !script.gateFirstCallOnly())) {
      script.gate().whenComplete((v, e) -> vertx.runOnContext(x -> next(response, script, call, index)));
      return;
    }
    vertx.setTimer(Math.max(1, script.interval().toMillis()), id -> {
      if (!response.closed() && !response.ended()) {
        String chunk = script.chunks().get(index);
        response.write(script.raw() ? chunk : "data: " + chunk + "\n\n");
        next(response, script, call, index + 1);
      }
    });
  }
}
