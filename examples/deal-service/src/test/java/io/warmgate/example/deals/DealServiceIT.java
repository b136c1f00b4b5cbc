package io.warmgate.example.deals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DealServiceIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static final HttpClient http = HttpClient.newHttpClient();
  private static final ObjectMapper json = new ObjectMapper();

  @BeforeAll
  static void seed() {
    DealSeeder.seed(spanner.databaseClient(), 20);
  }

  private static Map<String, String> env(String schemaVersion) {
    Map<String, String> env = new HashMap<>();
    env.put("PORT", "0");
    env.put("DEAL_SCHEMA_VERSION", schemaVersion);
    env.put("SPANNER_EMULATOR_HOST", spanner.emulatorHost());
    env.put("SPANNER_PROJECT", spanner.projectId());
    env.put("SPANNER_INSTANCE", spanner.instanceId());
    env.put("SPANNER_DATABASE", spanner.databaseId());
    env.put("WARMGATE_CACHE_NAME", "deals");
    env.put("WARMGATE_VALKEY_ADDRESSES", redis.host() + ":" + redis.port());
    return env;
  }

  private static HttpResponse<String> get(DealService service, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesADealWithItsAdsAndTargeting() throws Exception {
    try (DealService service = DealService.start(env("v1"))) {
      HttpResponse<String> response = get(service, "/deals/" + DealSeeder.dealId(3));

      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode deal = json.readTree(response.body());
      assertThat(deal.get("dealId").asText()).isEqualTo(DealSeeder.dealId(3));
      assertThat(deal.get("ads")).isNotEmpty();
      assertThat(deal.get("targeting")).isNotEmpty();
      assertThat(deal.has("advertiserDomain")).isFalse();
    }
  }

  @Test
  void unknownDealIsNotFoundAndEmptyIdIsABadRequest() throws Exception {
    try (DealService service = DealService.start(env("v1"))) {
      assertThat(get(service, "/deals/no-such-deal").statusCode()).isEqualTo(404);
      assertThat(get(service, "/deals/no-such-deal").statusCode()).isEqualTo(404);
      HttpResponse<String> empty = get(service, "/deals/");
      assertThat(empty.statusCode()).isEqualTo(400);
      assertThat(empty.body()).contains("id");
    }
  }

  @Test
  void schemaVersionSelectsTheTypeAndItsKeySpace() throws Exception {
    try (DealService v1 = DealService.start(env("v1"));
        DealService otherV1 = DealService.start(env("V1"));
        DealService v2 = DealService.start(env("v2"))) {
      assertThat(v1.schemaHash()).isEqualTo(otherV1.schemaHash());
      assertThat(v2.schemaHash()).isNotEqualTo(v1.schemaHash());

      JsonNode deal = json.readTree(get(v2, "/deals/" + DealSeeder.dealId(5)).body());
      assertThat(deal.has("advertiserDomain")).isTrue();
      JsonNode info = json.readTree(get(v2, "/info").body());
      assertThat(info.get("schemaHash").asText()).isEqualTo(v2.schemaHash());
      assertThat(info.get("schemaVersion").asText()).isEqualTo("v2");
    }
  }

  @Test
  void exposesPrometheusMetrics() throws Exception {
    try (DealService service = DealService.start(env("v1"))) {
      get(service, "/deals/" + DealSeeder.dealId(1));
      HttpResponse<String> metrics = get(service, "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("warmgate");
    }
  }

  @Test
  void badSettingsAreRefusedByName() {
    Map<String, String> badVersion = env("v9");
    assertThatThrownBy(() -> DealService.start(badVersion))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DEAL_SCHEMA_VERSION='v9'")
        .hasMessageContaining("v1");
    Map<String, String> badPort = env("v1");
    badPort.put("PORT", "eighty");
    assertThatThrownBy(() -> DealService.start(badPort))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PORT='eighty'");
  }
}
