package io.warmgate.operator.decision;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.warmgate.operator.gate.Coverage;
import io.warmgate.operator.gate.Decision;
import io.warmgate.operator.gate.GateReasons;
import io.warmgate.operator.gate.WarmVerdict;
import io.warmgate.operator.http.ServerTimeouts;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.revision.NewPods;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The request shapes of {@code GET /gate/} and {@code POST /flagger/confirm-promotion} over real
 * HTTP on loopback, the verdicts given: status codes, JSON, and which policy a payload names.
 * GateEndpointsIT drives them against a real API server and Valkey.
 */
class DecisionHandlersTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final NewPods PODS = new NewPods("shop", "Deployment shop/deals", "new1", "old1", null,
      NewPods.DEPLOYMENT_LABEL, true);

  HttpServer server;
  HttpClient http = HttpClient.newHttpClient();
  /** What the fake was asked, as "of ns/name" or "canary ns/name policy". */
  final List<String> asked = new ArrayList<>();
  boolean warm;

  static WarmVerdict verdict(boolean warm) {
    Decision d = warm ? new Decision.Release(GatePhase.Promoted, GateReasons.COVERAGE_REACHED,
        "released after 20 s: coverage 85.0% of 80% needed")
        : new Decision.Hold(GatePhase.Warming, GateReasons.WARMING,
            "held: warming 412/1,000 keys (coverage 41.2% of 80% needed)");
    return new WarmVerdict(warm, PODS, d, new Coverage(warm ? 850 : 412, 1000), 80, null, "bbb",
        "aaa", null);
  }

  @BeforeEach
  void start() throws IOException {
    Verdicts fake = new Verdicts(null, null, null) {
      @Override
      public Found of(String namespace, String name) {
        asked.add("of " + namespace + "/" + name);
        return "deals".equals(name) ? new Found(verdict(warm), namespace + "/" + name, null)
            : new Found(null, null, "CachePolicy " + namespace + "/" + name + " not found");
      }

      @Override
      public Found forCanary(String namespace, String canary, String policy) {
        asked.add("canary " + namespace + "/" + canary + " " + policy);
        return "deals".equals(policy == null ? canary : policy)
            ? new Found(verdict(warm), namespace + "/deals", null)
            : new Found(null, null, "no CachePolicy in namespace " + namespace);
      }
    };
    // As the operator's servers do: the JDK reads the bounds when a JVM's first server starts.
    ServerTimeouts.apply();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(GateHandler.PREFIX, new GateHandler(fake));
    server.createContext("/flagger/", new FlaggerHandler(fake));
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path));
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void warmingPolicyIsAnsweredWith200AndWarmFalse() throws Exception {
    HttpResponse<String> r = send("GET", "/gate/shop/deals", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
        t -> assertThat(t).startsWith("application/json"));
    JsonNode json = JSON.readTree(r.body());
    assertThat(json.get("warm").asBoolean()).isFalse();
    assertThat(json.get("reason").asText()).isEqualTo("Warming");
    assertThat(json.get("coverage").asDouble()).isEqualTo(41.2);
    assertThat(json.get("minCoverage").asInt()).isEqualTo(80);
    assertThat(json.get("schemaHash").asText()).isEqualTo("bbb");
    assertThat(json.get("podHash").asText()).isEqualTo("new1");
    assertThat(json.has("forecast")).isTrue();
    assertThat(json.get("hitRatio").isNull()).isTrue();
    assertThat(asked).containsExactly("of shop/deals");
  }

  @Test
  void warmPolicyIsAnsweredWithWarmTrue() throws Exception {
    warm = true;
    JsonNode json = JSON.readTree(send("GET", "/gate/shop/deals/", null).body());
    assertThat(json.get("warm").asBoolean()).isTrue();
    assertThat(json.get("reason").asText()).isEqualTo("CoverageReached");
  }

  @Test
  void unknownPolicyIs404NamingIt() throws Exception {
    HttpResponse<String> r = send("GET", "/gate/shop/nope", null);
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(r.body()).get("error").asText()).contains("shop/nope");
  }

  @Test
  void malformedPathsAre400AndAskNothing() throws Exception {
    for (String path : List.of("/gate/", "/gate/shop", "/gate/Shop/deals", "/gate/shop/deals/x",
        "/gate/shop/de_als")) {
      HttpResponse<String> r = send("GET", path, null);
      assertThat(r.statusCode()).as(path).isEqualTo(400);
      assertThat(JSON.readTree(r.body()).get("error").asText()).as(path)
          .contains("/gate/<namespace>/<policy>");
    }
    assertThat(asked).isEmpty();
  }

  @Test
  void gateAnswersOnlyGet() throws Exception {
    HttpResponse<String> r = send("POST", "/gate/shop/deals", "{}");
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("GET");
    assertThat(asked).isEmpty();
  }

  static String payload(String name, String metadata) {
    return "{\"name\":\"" + name + "\",\"namespace\":\"shop\",\"phase\":\"Progressing\","
        + "\"checksum\":\"abc\"" + (metadata == null ? "" : ",\"metadata\":" + metadata) + "}";
  }

  @Test
  void flaggerGets403WhileWarmingAnd200WhenWarm() throws Exception {
    HttpResponse<String> warming = send("POST", FlaggerHandler.PATH, payload("deals", null));
    assertThat(warming.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(warming.body()).get("warm").asBoolean()).isFalse();
    warm = true;
    HttpResponse<String> ready = send("POST", FlaggerHandler.PATH, payload("deals", null));
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(asked).containsExactly("canary shop/deals null", "canary shop/deals null");
  }

  @Test
  void flaggerMetadataNamesThePolicy() throws Exception {
    warm = true;
    HttpResponse<String> r = send("POST", FlaggerHandler.PATH,
        payload("frontend", "{\"policy\":\"deals\",\"other\":\"x\"}"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(asked).containsExactly("canary shop/frontend deals");
  }

  @Test
  void flaggerCanaryWithoutPolicyIs404() throws Exception {
    HttpResponse<String> r = send("POST", FlaggerHandler.PATH, payload("frontend", null));
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(r.body()).get("error").asText()).contains("shop");
  }

  @Test
  void flaggerBadBodiesAre400NamingTheProblem() throws Exception {
    assertThat(send("POST", FlaggerHandler.PATH, "not json").body()).contains("not JSON");
    assertThat(send("POST", FlaggerHandler.PATH, "[1]").body()).contains("not a JSON object");
    assertThat(send("POST", FlaggerHandler.PATH, "{\"namespace\":\"shop\"}").body())
        .contains("no \\\"name\\\" string");
    HttpResponse<String> bad = send("POST", FlaggerHandler.PATH, payload("Deals!", null));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("name 'Deals!' is not a Kubernetes name");
    assertThat(send("POST", FlaggerHandler.PATH, payload("deals", "{\"policy\":\"A B\"}"))
        .body()).contains("metadata.policy 'A B'");
    assertThat(send("POST", FlaggerHandler.PATH, "x".repeat(FlaggerHandler.MAX_BODY + 1))
        .statusCode()).isEqualTo(400);
    assertThat(asked).isEmpty();
  }

  @Test
  void flaggerAnswersOnlyPostOnItsPath() throws Exception {
    HttpResponse<String> get = send("GET", FlaggerHandler.PATH, null);
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("Allow")).hasValue("POST");
    assertThat(send("POST", "/flagger/confirm-rollout", payload("deals", null)).statusCode())
        .isEqualTo(404);
    assertThat(asked).isEmpty();
  }
}
