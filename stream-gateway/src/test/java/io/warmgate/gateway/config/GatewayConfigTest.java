package io.warmgate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put(GatewayConfig.VALKEY_ADDRESSES, "valkey:6379");
    env.put(GatewayConfig.UPSTREAM_URL, "http://llm:8000/v1/templates/{template}/stream");
    return env;
  }

  @Test
  void defaults() {
    GatewayConfig config = GatewayConfig.from(minimal());
    assertThat(config.port()).isEqualTo(8080);
    assertThat(config.resultTtl()).isEqualTo(Duration.ofMillis(200));
    assertThat(config.burstResultTtl()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.lockTtl()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.streamCap()).isEqualTo(10_000);
    assertThat(config.upstreamHeaders()).isEmpty();
    assertThat(config.schemaDir()).isEmpty();
  }

  @Test
  void readsDurationsAndHeadersAndHidesSecrets() {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.RESULT_TTL, "1.5s");
    env.put(GatewayConfig.BURST_RESULT_TTL, "1m30s");
    env.put(GatewayConfig.UPSTREAM_HEADER_PREFIX + "AUTHORIZATION", "Bearer s3cret");
    env.put(GatewayConfig.UPSTREAM_HEADER_PREFIX + "X_API_KEY", "k3y");
    env.put(GatewayConfig.VALKEY_PASSWORD, "pw");
    GatewayConfig config = GatewayConfig.from(env);
    assertThat(config.resultTtl()).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.burstResultTtl()).isEqualTo(Duration.ofSeconds(90));
    assertThat(config.upstreamHeaders()).containsEntry("Authorization", "Bearer s3cret").containsEntry("X-Api-Key", "k3y");
    assertThat(config.toString()).doesNotContain("s3cret", "k3y", "pw,");
  }

  @Test
  void badValuesNameTheVariableTheValueAndTheFix() {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.RESULT_TTL, "fast");
    assertThatThrownBy(() -> GatewayConfig.from(env))
        .hasMessageContaining("WARMGATE_GATEWAY_RESULT_TTL").hasMessageContaining("'fast'")
        .hasMessageContaining("500ms, 60s, 4m");
    env.remove(GatewayConfig.RESULT_TTL);
    env.put(GatewayConfig.STREAM_CAP, "-3");
    assertThatThrownBy(() -> GatewayConfig.from(env))
        .hasMessageContaining("WARMGATE_GATEWAY_STREAM_CAP").hasMessageContaining("greater than 0");
    env.remove(GatewayConfig.STREAM_CAP);
    env.put(GatewayConfig.UPSTREAM_URL, "llm:8000");
    assertThatThrownBy(() -> GatewayConfig.from(env))
        .hasMessageContaining("WARMGATE_GATEWAY_UPSTREAM_URL").hasMessageContaining("absolute http(s) URL");
    env.remove(GatewayConfig.UPSTREAM_URL);
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageContaining("WARMGATE_GATEWAY_UPSTREAM_URL is not set");
  }

  @Test
  void refusesSeveralValkeyAddresses() {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.VALKEY_ADDRESSES, "a:1,b:2");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageContaining("exactly one host:port");
  }
}
