package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.valkey.env.EnvValues;
import io.warmgate.valkey.ValkeyEndpoint;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class WarmGateConfigTest {

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("WARMGATE_CACHE_NAME", "deals");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void defaultsMatchTheDesign() {
    WarmGateConfig c = WarmGateConfig.from(env());
    assertThat(c.cacheName()).isEqualTo("deals");
    assertThat(c.valkeyAddresses()).isEmpty();
    assertThat(c.valkeyTls()).isFalse();
    assertThat(c.l1Ttl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.l1MaxSize()).isEqualTo(100_000);
    assertThat(c.l2Ttl()).isEqualTo(Duration.ofMinutes(4));
    assertThat(c.negativeTtl()).as("unset: tiers use their own TTLs").isEmpty();
    assertThat(c.refreshAhead()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.lockTtl()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.fillWait()).as("unset: the origin's timeout").isEmpty();
    assertThat(c.l2Timeout()).isEqualTo(Duration.ofMillis(20));
    assertThat(c.maxStaleness()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.staleIfError()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.maxValueBytes()).isEqualTo(512 * 1024);
    assertThat(c.maxIdBytes()).isEqualTo(512);
    assertThat(c.hotSamplePeriod()).isEqualTo(16);
    assertThat(c.originBreakerWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.keySpaceVersion()).as("unset: the type's own key space").isEmpty();
    assertThat(c.changeStream()).as("unset: no change stream watcher").isEmpty();
    assertThat(c.changeStreamHeartbeat()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.podName()).isEmpty();
  }

  @Test
  void everyVariableIsRead() {
    WarmGateConfig c = WarmGateConfig.from(env(
        "WARMGATE_VALKEY_ADDRESSES", "valkey.ns.svc:6379",
        "WARMGATE_VALKEY_MODE", "standalone",
        "WARMGATE_VALKEY_USERNAME", "agent",
        "WARMGATE_VALKEY_PASSWORD", "s3cret",
        "WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_L1_TTL", "30s",
        "WARMGATE_L1_MAX_SIZE", "5000",
        "WARMGATE_L2_TTL", "1h30m",
        "WARMGATE_NEGATIVE_TTL", "10s",
        "WARMGATE_REFRESH_AHEAD", "45s",
        "WARMGATE_LOCK_TTL", "2500ms",
        "WARMGATE_FILL_WAIT", "100ms",
        "WARMGATE_L2_TIMEOUT", "15ms",
        "WARMGATE_MAX_STALENESS", "2h",
        "WARMGATE_STALE_IF_ERROR", "10m",
        "WARMGATE_MAX_VALUE_BYTES", "1MiB",
        "WARMGATE_MAX_ID_BYTES", "65536",
        "WARMGATE_HOT_SAMPLE_PERIOD", "1",
        "WARMGATE_ORIGIN_BREAKER_WAIT", "1m30s",
        "WARMGATE_KEY_SPACE_VERSION", "2026-03-cents",
        "WARMGATE_CHANGE_STREAM", "DealChanges",
        "WARMGATE_CHANGE_STREAM_HEARTBEAT", "250ms",
        "WARMGATE_POD_NAME", "deal-service-abc",
        "WARMGATE_POD_NAMESPACE", "ads",
        "WARMGATE_POD_TEMPLATE_HASH", "6d5f7c"));
    assertThat(c.valkeyAddresses()).containsExactly("valkey.ns.svc:6379");
    assertThat(c.valkeyUsername()).contains("agent");
    assertThat(c.valkeyPassword()).contains("s3cret");
    assertThat(c.valkeyTls()).isTrue();
    assertThat(c.l1Ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.l1MaxSize()).isEqualTo(5000);
    assertThat(c.l2Ttl()).isEqualTo(Duration.ofMinutes(90));
    assertThat(c.negativeTtl()).contains(Duration.ofSeconds(10));
    assertThat(c.refreshAhead()).isEqualTo(Duration.ofSeconds(45));
    assertThat(c.lockTtl()).isEqualTo(Duration.ofMillis(2500));
    assertThat(c.fillWait()).contains(Duration.ofMillis(100));
    assertThat(c.l2Timeout()).isEqualTo(Duration.ofMillis(15));
    assertThat(c.maxStaleness()).isEqualTo(Duration.ofHours(2));
    assertThat(c.staleIfError()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.maxValueBytes()).isEqualTo(1 << 20);
    assertThat(c.maxIdBytes()).isEqualTo(65_536);
    assertThat(c.hotSamplePeriod()).isEqualTo(1);
    assertThat(c.originBreakerWait()).isEqualTo(Duration.ofSeconds(90));
    assertThat(c.keySpaceVersion()).contains("2026-03-cents");
    assertThat(c.changeStream()).contains("DealChanges");
    assertThat(c.changeStreamHeartbeat()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.podName()).contains("deal-service-abc");
    assertThat(c.podNamespace()).contains("ads");
    assertThat(c.podTemplateHash()).contains("6d5f7c");
    assertThat(c.toString()).doesNotContain("s3cret").contains("<redacted>");
  }

  @Test
  void zeroFillWaitTurnsTheLeaseOff() {
    assertThat(WarmGateConfig.from(env("WARMGATE_FILL_WAIT", "0s")).fillWait()).contains(Duration.ZERO);
    assertThat(WarmGateConfig.from(env("WARMGATE_FILL_WAIT", "0")).fillWait()).contains(Duration.ZERO);
  }

  @ParameterizedTest
  @CsvSource({"500ms,500", "60s,60000", "4m,240000", "1h30m,5400000", "1.5s,1500", "0,0",
      "2h0m1s,7201000", "1.5h,5400000", "' 4m ',240000"})
  void durationsAreKubernetesStyle(String text, long millis) {
    assertThat(EnvValues.duration("X", text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"524288,524288", "512KiB,524288", "512Ki,524288", "1MB,1000000", "2Mi,2097152", "1k,1000"})
  void sizesTakeUnits(String text, long bytes) {
    assertThat(EnvValues.bytes("X", text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource({"WARMGATE_L1_TTL,60,'a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)'",
      "WARMGATE_L2_TTL,4 minutes,'a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)'",
      "WARMGATE_LOCK_TTL,-5s,'a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)'",
      "WARMGATE_FILL_WAIT,250,'a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)'",
      "WARMGATE_REFRESH_AHEAD,1m30,'a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)'",
      "WARMGATE_MAX_VALUE_BYTES,lots,'a byte size such as 524288, 512KiB, 512Ki or 1MB'",
      "WARMGATE_L1_MAX_SIZE,0,'a whole number greater than 0, such as 100000'",
      "WARMGATE_MAX_ID_BYTES,0,'a whole number of bytes from 1 to 65536, such as 512'",
      "WARMGATE_MAX_ID_BYTES,65537,'a whole number of bytes from 1 to 65536, such as 512'",
      "WARMGATE_MAX_ID_BYTES,1KiB,'a whole number of bytes from 1 to 65536, such as 512'",
      "WARMGATE_HOT_SAMPLE_PERIOD,0,'a power of two from 1 (every lookup) to 1024, such as 16'",
      "WARMGATE_HOT_SAMPLE_PERIOD,12,'a power of two from 1 (every lookup) to 1024, such as 16'",
      "WARMGATE_HOT_SAMPLE_PERIOD,2048,'a power of two from 1 (every lookup) to 1024, such as 16'",
      "WARMGATE_VALKEY_TLS,yes,'true or false'",
      "WARMGATE_CHANGE_STREAM_HEARTBEAT,50ms,'a duration from 100ms to 5m (the range Spanner takes), such as 1s'",
      "WARMGATE_CHANGE_STREAM_HEARTBEAT,6m,'a duration from 100ms to 5m (the range Spanner takes), such as 1s'",
      "WARMGATE_VALKEY_ADDRESSES,valkey,'comma-separated host:port pairs'"})
  void badValueIsRefusedNamingVariableValueAndExpectedForm(String variable, String value,
      String expected) {
    assertThatThrownBy(() -> WarmGateConfig.from(env(variable, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(variable + "='" + value + "' is invalid: expected " + expected);
  }

  @Test
  void changeStreamThatIsNotASpannerNameIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> WarmGateConfig.from(env("WARMGATE_CHANGE_STREAM", "deal-changes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("WARMGATE_CHANGE_STREAM='deal-changes' is invalid: expected a letter, then up "
            + "to 127 letters, digits or '_', as in CREATE CHANGE STREAM <name> (or unset it to "
            + "run without a change stream watcher)");
  }

  @Test
  void cacheNameThatCannotBeAKeyPartIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> WarmGateConfig.from(Map.of("WARMGATE_CACHE_NAME", "deals:v2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("WARMGATE_CACHE_NAME='deals:v2' is invalid: expected 1-63 lowercase "
            + "letters, digits or '-', starting and ending with a letter or digit");
  }

  @Test
  void missingCacheNameIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> WarmGateConfig.from(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("WARMGATE_CACHE_NAME is not set");
  }

  @Test
  void severalAddressesAreTheSeedNodesOfACluster() {
    WarmGateConfig c = WarmGateConfig.from(env("WARMGATE_VALKEY_MODE", "Cluster",
        "WARMGATE_VALKEY_ADDRESSES", "10.0.0.3:6379, 10.0.0.4:6379,10.0.0.5:6379"));
    assertThat(c.valkeyMode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    ValkeyEndpoint endpoint = c.valkeyEndpoint().orElseThrow();
    assertThat(endpoint.mode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    assertThat(endpoint.nodes()).extracting(u -> u.getHost() + ":" + u.getPort())
        .containsExactly("10.0.0.3:6379", "10.0.0.4:6379", "10.0.0.5:6379");
    assertThat(endpoint.readFrom()).isEqualTo(ValkeyEndpoint.ReadFrom.PRIMARY);
  }

  @Test
  void blankVariablesTakeTheirDefaults() {
    WarmGateConfig c = WarmGateConfig.from(env("WARMGATE_L1_TTL", " ", "WARMGATE_VALKEY_ADDRESSES", "",
        "WARMGATE_KEY_SPACE_VERSION", " "));
    assertThat(c.l1Ttl()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.keySpaceVersion()).isEmpty();
    assertThat(c.valkeyAddresses()).isEqualTo(List.of());
  }
}
