package io.warmgate.operator.inject;

import static io.warmgate.operator.http.HttpResponses.respond;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import io.warmgate.operator.http.ServerTimeouts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@value #PATH} over HTTPS: reads an {@code admission.k8s.io/v1} AdmissionReview, answers
 * it through the admission controller. The certificate comes from a {@link ServingKeyManager}, so
 * it can be replaced while serving.
 */
final class WebhookServer implements AutoCloseable {

  /** The path the webhook configuration points at. */
  static final String PATH = "/mutate-pods";
  /** AdmissionReviews of large pods stay far below this; a bigger body is refused. */
  private static final int MAX_BODY = 4 * 1024 * 1024;

  /**
   * Threads serving connections. The JDK server reads a connection's TLS handshake and request
   * with blocking reads on these threads, so a client that connects and stalls holds one until
   * {@link #MAX_REQUEST_SECONDS}; many threads keep the API server's requests from queueing
   * behind such clients.
   */
  static final int THREADS = 32;
  /** Connections waiting for a thread beyond {@link #THREADS}; more are dropped. */
  private static final int QUEUE = 1024;
  /** Longest a connection may take to complete its TLS handshake and send a request's headers. */
  static final int MAX_REQUEST_SECONDS = ServerTimeouts.MAX_REQUEST_SECONDS;

  static {
    ServerTimeouts.apply();
  }

  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);

  private final HttpsServer server;
  private final ExecutorService executor;
  private final AdmissionController<Pod> controller;
  private final KubernetesSerialization serialization;

  WebhookServer(int port, ServingKeyManager keys, AdmissionController<Pod> controller,
      KubernetesSerialization serialization) throws IOException {
    this.controller = controller;
    this.serialization = serialization;
    SSLContext tls;
    try {
      tls = SSLContext.getInstance("TLS");
      tls.init(new KeyManager[] {keys}, null, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM offers no TLS context", e);
    }
    server = HttpsServer.create(new InetSocketAddress(port), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(QUEUE), r -> {
          Thread t = new Thread(r, "warmgate-webhook");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    executor = pool;
    server.setExecutor(executor);
    server.createContext(PATH, this::review);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void review(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        respond(exchange, 405, "text/plain", "POST an admission.k8s.io/v1 AdmissionReview\n");
        return;
      }
      AdmissionReview request;
      try (InputStream body = exchange.getRequestBody()) {
        byte[] bytes = body.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          respond(exchange, 413, "text/plain", "AdmissionReview larger than 4 MiB\n");
          return;
        }
        request = serialization.unmarshal(new String(bytes, StandardCharsets.UTF_8),
            AdmissionReview.class);
      } catch (RuntimeException e) {
        respond(exchange, 400, "text/plain", "not an AdmissionReview: " + e.getMessage() + "\n");
        return;
      }
      if (request == null || request.getRequest() == null) {
        respond(exchange, 400, "text/plain", "the AdmissionReview has no request\n");
        return;
      }
      respond(exchange, 200, "application/json",
          serialization.asJson(controller.handle(request)));
    } catch (RuntimeException e) {
      log.error("Failed to answer an admission review", e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
