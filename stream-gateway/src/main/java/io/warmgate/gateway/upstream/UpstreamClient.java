package io.warmgate.gateway.upstream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.warmgate.gateway.config.GatewayConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Calls the upstream SSE endpoint: {@code POST <url>} with {@code {"template": t, "shared": {...}}},
 * the configured headers and {@code Accept: text/event-stream}, and streams the events back.
 *
 * <p>Bounded in time three ways: connect timeout, idle timeout (silence between two reads) and a
 * timeout for the whole response; in size by the largest event; in connections by the key cap
 * (the pool holds at most that many, and as many calls may wait for one). A status other than 200
 * is an error. Failures carry a message for the log (URL, status, the start of the error body)
 * and a shorter one for clients without them ({@link UpstreamException#clientMessage()}).
 * Thread-safe.
 */
public final class UpstreamClient implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_ERROR_BODY = 512;

  private final Vertx vertx;
  private final HttpClient http;
  private final String urlTemplate;
  private final Map<String, String> headers;
  private final Duration connectTimeout;
  private final Duration idleTimeout;
  private final Duration timeout;
  private final int maxEventBytes;

  /** Creates a client using {@code vertx}'s event loops and the upstream settings of {@code config}. */
  public UpstreamClient(Vertx vertx, GatewayConfig config) {
    this.vertx = vertx;
    this.maxEventBytes = config.upstreamMaxEventBytes();
    // One connection per concurrent call: SSE responses hold their connection for the whole
    // response. The coalescer runs at most maxKeys calls; a takeover may briefly add some.
    this.http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(config.maxKeys()).setMaxWaitQueueSize(config.maxKeys()));
    this.urlTemplate = config.upstreamUrl();
    this.headers = config.upstreamHeaders();
    this.connectTimeout = config.upstreamConnectTimeout();
    this.idleTimeout = config.upstreamIdleTimeout();
    this.timeout = config.upstreamTimeout();
  }

  /** The URL called for {@code template}. */
  public String url(String template) {
    return urlTemplate.replace("{template}", URLEncoder.encode(template, StandardCharsets.UTF_8));
  }

  /**
   * Starts a call for {@code template} with {@code shared} variables; {@code listener} is called on
   * a Vert.x context of this client.
   */
  public UpstreamCall open(String template, JsonNode shared, UpstreamListener listener) {
    Call call = new Call(url(template), listener);
    byte[] body;
    try {
      ObjectNode request = JSON.createObjectNode();
      request.put("template", template);
      request.set("shared", shared == null ? JSON.createObjectNode() : shared);
      body = JSON.writeValueAsBytes(request);
    } catch (JsonProcessingException e) {
      call.fail(new UpstreamException("cannot encode the upstream request",
          "cannot encode the upstream request for " + template, e));
      return call;
    }
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setAbsoluteURI(call.url)
        .setConnectTimeout(connectTimeout.toMillis())
        .putHeader("Accept", "text/event-stream")
        .putHeader("Content-Type", "application/json");
    headers.forEach(options::putHeader);
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> call.start(options, Buffer.buffer(body)));
    return call;
  }

  @Override
  public void close() {
    http.close();
  }

  private final class Call implements UpstreamCall {
    private final String url;
    private final UpstreamListener listener;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile HttpClientRequest request;
    private volatile HttpClientResponse response;
    private volatile long timer = -1;
    private volatile long watchdog = -1;
    private volatile long lastActivity = System.nanoTime();

    Call(String url, UpstreamListener listener) {
      this.url = url;
      this.listener = listener;
    }

    void start(RequestOptions options, Buffer body) {
      if (finished.get()) {
        return;
      }
      timer = vertx.setTimer(timeout.toMillis(), id -> {
        String what = "did not finish its response within " + timeout + " (WARMGATE_GATEWAY_UPSTREAM_TIMEOUT)";
        fail(new UpstreamException("the upstream " + what, "upstream " + url + " " + what, null));
        reset();
      });
      // Our own idle check: it covers the whole exchange, from sending the request to the last byte.
      long idleNanos = idleTimeout.toNanos();
      watchdog = vertx.setPeriodic(Math.max(10, idleTimeout.toMillis() / 4), id -> {
        if (finished.get()) {
          vertx.cancelTimer(id);
        } else if (System.nanoTime() - lastActivity > idleNanos) {
          String what = "sent nothing for " + idleTimeout + " (WARMGATE_GATEWAY_UPSTREAM_IDLE_TIMEOUT)";
          fail(new UpstreamException("the upstream " + what, "upstream " + url + " " + what, null));
          reset();
        }
      });
      http.request(options)
          .compose(req -> {
            request = req;
            req.exceptionHandler(this::fail);
            return req.send(body);
          })
          .onSuccess(this::onResponse)
          .onFailure(this::fail);
    }

    private void onResponse(HttpClientResponse resp) {
      response = resp;
      if (resp.statusCode() != 200) {
        int status = resp.statusCode();
        resp.body().onComplete(ar -> {
          String text = ar.succeeded() ? ar.result().toString(StandardCharsets.UTF_8) : "";
          // The body may hold anything the upstream knows: it goes to the log only.
          fail(new UpstreamException("the upstream answered " + status,
              "upstream " + url + " answered " + status + " " + resp.statusMessage()
                  + (text.isBlank() ? "" : ": "
                  + text.substring(0, Math.min(MAX_ERROR_BODY, text.length())).strip()), null));
        });
        return;
      }
      SseParser parser = new SseParser(event -> {
        if (!finished.get()) {
          listener.onEvent(event);
        }
      }, maxEventBytes);
      lastActivity = System.nanoTime();
      resp.handler(buffer -> {
        lastActivity = System.nanoTime();
        if (finished.get()) {
          return;
        }
        try {
          parser.feed(buffer.getBytes());
        } catch (UpstreamException malformed) {
          fail(new UpstreamException(malformed.clientMessage(),
              "upstream " + url + ": " + malformed.getMessage(), null));
          reset();
        }
      });
      resp.exceptionHandler(this::fail);
      resp.endHandler(v -> {
        if (finished.compareAndSet(false, true)) {
          stopTimers();
          listener.onEnd();
        }
      });
    }

    void fail(Throwable failure) {
      if (finished.compareAndSet(false, true)) {
        stopTimers();
        listener.onError(failure instanceof UpstreamException ? failure
            : new UpstreamException("the upstream call failed; the gateway's log names the cause",
                "upstream " + url + " failed: " + failure, failure));
      }
    }

    @Override
    public void pause() {
      HttpClientResponse resp = response;
      if (resp != null) {
        resp.pause();
      }
    }

    @Override
    public void resume() {
      HttpClientResponse resp = response;
      if (resp != null) {
        resp.resume();
      }
    }

    @Override
    public void cancel() {
      if (finished.compareAndSet(false, true)) {
        stopTimers();
      }
      reset();
    }

    private void stopTimers() {
      vertx.cancelTimer(timer);
      vertx.cancelTimer(watchdog);
    }

    private void reset() {
      HttpClientRequest req = request;
      if (req != null) {
        req.reset();
      }
    }
  }
}
