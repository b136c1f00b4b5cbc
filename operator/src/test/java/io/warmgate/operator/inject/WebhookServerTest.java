package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.webhook.admission.AdmissionController;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The wire shape: an {@code admission.k8s.io/v1} AdmissionReview as the API server posts it, over
 * TLS trusted through the issuing CA, answered with the request's uid and a base64 RFC 6902 patch.
 */
class WebhookServerTest {

  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  WebhookServer server;
  HttpClient client;

  @BeforeEach
  void start() throws Exception {
    Certificates.Issued ca = Certificates.newCa("test-ca", Duration.ofDays(1), Clock.systemUTC());
    Certificates.Issued serving = Certificates.newServing(ca, List.of("127.0.0.1"),
        Duration.ofDays(1), Clock.systemUTC());
    ServingKeyManager keys = new ServingKeyManager();
    keys.use(serving.key(), List.of(serving.certificate()));
    PodInjectionHandler handler = new PodInjectionHandler(
        (ns, name) -> name.equals("deals")
            ? Optional.of(PodInjectorTest.policy(List.of("app"))) : Optional.empty(),
        ns -> true, (ns, deployment) -> false, new InjectionEvents(null, Clock.systemUTC()),
        new SimpleMeterRegistry());
    server = new WebhookServer(0, keys, new AdmissionController<Pod>(handler), SERIALIZATION);

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.certificate());
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, trustManagers.getTrustManagers(), null);
    client = HttpClient.newBuilder().sslContext(tls).build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  static final String REVIEW = """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
          "kind":{"group":"","version":"v1","kind":"Pod"},
          "resource":{"group":"","version":"v1","resource":"pods"},
          "namespace":"shop","operation":"CREATE","dryRun":false,
          "userInfo":{"username":"system:serviceaccount:kube-system:replicaset-controller"},
          "object":{"apiVersion":"v1","kind":"Pod",
            "metadata":{"generateName":"deal-service-","labels":{"warmgate.io/cache-policy":"deals"}},
            "spec":{"containers":[{"name":"app","image":"app:1"}]}}}}
        """;

  @Test
  void answersAReviewWithTheUidAndAJsonPatch() throws Exception {
    String review = REVIEW;

    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(
            "https://127.0.0.1:" + server.port() + WebhookServer.PATH))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(review)).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode answer = new ObjectMapper().readTree(response.body());
    assertThat(answer.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(answer.path("kind").asText()).isEqualTo("AdmissionReview");
    JsonNode result = answer.path("response");
    assertThat(result.path("uid").asText()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
    assertThat(result.path("allowed").asBoolean()).isTrue();
    assertThat(result.path("patchType").asText()).isEqualTo("JSONPatch");
    JsonNode patch = new ObjectMapper().readTree(
        Base64.getDecoder().decode(result.path("patch").asText()));
    assertThat(patch.isArray()).isTrue();
    assertThat(patch.findValuesAsText("op")).containsOnly("add");
    assertThat(patch.findValuesAsText("path"))
        .anyMatch(p -> p.startsWith("/spec/containers/0/env"))
        .anyMatch(p -> p.startsWith("/metadata/annotations"));
  }

  /**
   * Issue 28 item 9: clients that open a connection and stall, before or inside the TLS
   * handshake, do not hold up the API server's admission request.
   */
  @Test
  void clientsThatConnectAndStallDoNotDelayAnAdmission() throws Exception {
    List<Socket> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 16; i++) {
        Socket socket = new Socket("127.0.0.1", server.port());
        stalled.add(socket);
        if (i % 2 == 0) {
          // The header of a TLS handshake record promising 512 bytes, then nothing.
          socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
          socket.getOutputStream().flush();
        }
      }
      Thread.sleep(500);

      long start = System.nanoTime();
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(
              "https://127.0.0.1:" + server.port() + WebhookServer.PATH))
          .timeout(Duration.ofSeconds(5))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(REVIEW)).build(),
          HttpResponse.BodyHandlers.ofString());
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(took).as("admission with 16 stalled clients").isLessThan(Duration.ofSeconds(2));
    } finally {
      for (Socket socket : stalled) {
        socket.close();
      }
    }
  }

  @Test
  void aConnectionStalledInItsHandshakeIsClosedAfterTheRequestTimeout() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
      socket.getOutputStream().flush();
      socket.setSoTimeout((WebhookServer.MAX_REQUEST_SECONDS + 5) * 1000);
      long start = System.nanoTime();

      // The server may say why (a TLS alert) before it closes; read to the end.
      int read;
      try {
        do {
          read = socket.getInputStream().read();
        } while (read >= 0);
      } catch (java.net.SocketException reset) {
        read = -1;
      }

      assertThat(read).as("the server closed the stalled connection").isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(Duration.ofSeconds(WebhookServer.MAX_REQUEST_SECONDS + 3));
    }
  }

  @Test
  void refusesWhatIsNotAReview() throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(
            "https://127.0.0.1:" + server.port() + WebhookServer.PATH))
        .POST(HttpRequest.BodyPublishers.ofString(SERIALIZATION.asJson(Map.of("a", 1)))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(400);
  }
}
