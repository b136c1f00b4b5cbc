package io.warmgate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.SslVerifyMode;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayConfigTest {

  private static Map<String, String> minimal() {
    Map<String, String> env = new HashMap<>();
    env.put(GatewayConfig.VALKEY_ADDRESSES, "valkey:6379");
    env.put(GatewayConfig.UPSTREAM_URL, "http://llm:8000/v1/templates/{template}/stream");
    env.put(GatewayConfig.STREAM_TOKENS, "stream-token-0123456789");
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
    assertThat(config.valkeyEndpoint().mode()).isEqualTo(ValkeyEndpoint.Mode.STANDALONE);
    assertThat(config.valkeyEndpoint().toString()).isEqualTo("standalone valkey:6379");
    assertThat(config.authEnabled()).isTrue();
    assertThat(config.burstTokens()).isEmpty();
    assertThat(config.burstFlagMaxTtl()).isEqualTo(Duration.ofMinutes(30));
    assertThat(config.maxKeys()).isEqualTo(256);
    assertThat(config.slowClientTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.clientIdleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.clientSendBuffer()).isEqualTo(64 * 1024);
    assertThat(config.upstreamMaxEventBytes()).isEqualTo(1024 * 1024);
  }

  @Test
  void clientsMustPresentTokensUnlessAuthenticationIsLeftToSomethingInFront() {
    Map<String, String> env = minimal();
    env.remove(GatewayConfig.STREAM_TOKENS);
    assertThatThrownBy(() -> GatewayConfig.from(env))
        .hasMessageStartingWith("WARMGATE_GATEWAY_STREAM_TOKENS_FILE is not set: clients of the "
            + "gateway present a bearer token")
        .hasMessageContaining("WARMGATE_GATEWAY_AUTH=none");
    env.put(GatewayConfig.AUTH, "none");
    assertThat(GatewayConfig.from(env).authEnabled()).isFalse();
    env.put(GatewayConfig.BURST_TOKENS, "burst-token-0123456789");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessage("WARMGATE_GATEWAY_AUTH=none admits "
        + "every client, but WARMGATE_GATEWAY_BURST_TOKENS is set: unset the tokens, or "
        + "WARMGATE_GATEWAY_AUTH to require them");
    env.put(GatewayConfig.AUTH, "mtls");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageStartingWith(
        "WARMGATE_GATEWAY_AUTH='mtls' is invalid: expected token");
  }

  @Test
  void tokensComeFromOneSourcePerRoleAndAreCheckedAtStartUp(@TempDir Path dir) throws Exception {
    Map<String, String> env = minimal();
    Path file = dir.resolve("stream");
    java.nio.file.Files.writeString(file, "from-a-mounted-secret-0123\n");
    env.put(GatewayConfig.STREAM_TOKENS_FILE, file.toString());
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessage(
        "WARMGATE_GATEWAY_STREAM_TOKENS_FILE and WARMGATE_GATEWAY_STREAM_TOKENS are both set: set only one");
    env.remove(GatewayConfig.STREAM_TOKENS);
    env.put(GatewayConfig.BURST_TOKENS, "tiny");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageStartingWith(
        "WARMGATE_GATEWAY_BURST_TOKENS (token 1) holds a token of 4 characters");
    env.put(GatewayConfig.BURST_TOKENS, "burst-token-0123456789");
    GatewayConfig config = GatewayConfig.from(env);
    assertThat(config.streamTokens()).hasValueSatisfying(t -> assertThat(t.path()).contains(file));
    assertThat(config.toString()).doesNotContain("burst-token-0123456789", "from-a-mounted-secret")
        .contains("auth=token");
  }

  @Test
  void capsAreReadAndTheBurstFlagTtlStaysWithinItsCap() {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.MAX_KEYS, "64");
    env.put(GatewayConfig.CLIENT_SEND_BUFFER, "0");
    env.put(GatewayConfig.UPSTREAM_MAX_EVENT_BYTES, "64KiB");
    env.put(GatewayConfig.BURST_FLAG_MAX_TTL, "1m");
    env.put(GatewayConfig.BURST_FLAG_TTL, "2m");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessage("WARMGATE_GATEWAY_BURST_FLAG_TTL='2m' "
        + "is invalid: expected at most WARMGATE_GATEWAY_BURST_FLAG_MAX_TTL (1m); shorten it or raise the cap");
    env.put(GatewayConfig.BURST_FLAG_TTL, "30s");
    GatewayConfig config = GatewayConfig.from(env);
    assertThat(config.maxKeys()).isEqualTo(64);
    assertThat(config.clientSendBuffer()).isZero();
    assertThat(config.upstreamMaxEventBytes()).isEqualTo(65536);
    env.put(GatewayConfig.CLIENT_IDLE_TIMEOUT, "500ms");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageStartingWith(
        "WARMGATE_GATEWAY_CLIENT_IDLE_TIMEOUT='500ms' is invalid: expected at least 1s");
    env.remove(GatewayConfig.CLIENT_IDLE_TIMEOUT);
    env.put(GatewayConfig.MAX_KEYS, "0");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessageStartingWith(
        "WARMGATE_GATEWAY_MAX_KEYS='0' is invalid: expected a whole number greater than 0");
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
  void aClusterWithTlsItsCaAndCredentials(@TempDir Path dir) {
    TestCertificates pki = TestCertificates.issue(dir);
    Map<String, String> env = minimal();
    env.put(GatewayConfig.VALKEY_MODE, "cluster");
    env.put(GatewayConfig.VALKEY_ADDRESSES, "10.0.0.3:6379, 10.0.0.4:6379,10.0.0.5:6379");
    env.put(GatewayConfig.VALKEY_TLS, "true");
    env.put(GatewayConfig.VALKEY_TLS_CA_FILE, pki.caCertificate().toString());
    env.put(GatewayConfig.VALKEY_TLS_VERIFY, "ca");
    env.put(GatewayConfig.VALKEY_USERNAME, "gateway");
    env.put(GatewayConfig.VALKEY_PASSWORD, "s3cret");
    GatewayConfig config = GatewayConfig.from(env);

    ValkeyEndpoint endpoint = config.valkeyEndpoint();
    assertThat(endpoint.mode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    assertThat(endpoint.nodes()).hasSize(3).allSatisfy(uri -> {
      assertThat(uri.isSsl()).isTrue();
      assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
      assertThat(uri.getCredentialsProvider().resolveCredentials().block().getUsername())
          .isEqualTo("gateway");
    });
    assertThat(config.toString())
        .contains("cluster seeds 10.0.0.3:6379,10.0.0.4:6379,10.0.0.5:6379, TLS (CA "
            + pki.caCertificate() + ")")
        .doesNotContain("s3cret");
  }

  @Test
  void theCaAsPemText(@TempDir Path dir) {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.VALKEY_TLS, "true");
    env.put(GatewayConfig.VALKEY_TLS_CA, TestCertificates.issue(dir).caPem());
    assertThat(GatewayConfig.from(env).valkeyEndpoint().toString())
        .isEqualTo("standalone valkey:6379, TLS (CA given as PEM)");
  }

  @Test
  void badValkeyCombinationsNameTheVariableTheValueAndTheFix() {
    assertRefused(Map.of(GatewayConfig.VALKEY_ADDRESSES, "a:1,b:2"),
        "WARMGATE_VALKEY_ADDRESSES='a:1,b:2' is invalid: expected exactly one host:port in "
            + "standalone mode; if these are a Valkey cluster's seed nodes, set "
            + "WARMGATE_VALKEY_MODE=cluster");
    assertRefused(Map.of(GatewayConfig.VALKEY_MODE, "sharded"),
        "WARMGATE_VALKEY_MODE='sharded' is invalid: expected standalone (one server) or cluster");
    String seventeen = IntStream.rangeClosed(1, 17).mapToObj(i -> "n" + i + ":6379")
        .collect(Collectors.joining(","));
    assertRefused(Map.of(GatewayConfig.VALKEY_MODE, "cluster",
            GatewayConfig.VALKEY_ADDRESSES, seventeen),
        "WARMGATE_VALKEY_ADDRESSES='" + seventeen + "' is invalid: expected at most 16 seed nodes");
    assertRefused(Map.of(GatewayConfig.VALKEY_MODE, "cluster",
            GatewayConfig.VALKEY_ADDRESSES, "a:1,a:1"),
        "WARMGATE_VALKEY_ADDRESSES='a:1,a:1' is invalid: expected each host:port listed once");
    assertRefused(Map.of(GatewayConfig.VALKEY_ADDRESSES, "valkey"),
        "WARMGATE_VALKEY_ADDRESSES='valkey' is invalid: expected comma-separated host:port pairs");
    assertRefused(Map.of(GatewayConfig.VALKEY_TLS_CA, "pem"),
        "WARMGATE_VALKEY_TLS_CA is set but WARMGATE_VALKEY_TLS is not true: set "
            + "WARMGATE_VALKEY_TLS=true to connect with TLS, or unset WARMGATE_VALKEY_TLS_CA");
    assertRefused(Map.of(GatewayConfig.VALKEY_TLS, "true", GatewayConfig.VALKEY_TLS_CA, "pem",
            GatewayConfig.VALKEY_TLS_CA_FILE, "/ca.pem"),
        "WARMGATE_VALKEY_TLS_CA_FILE and WARMGATE_VALKEY_TLS_CA are both set: set only one");
    assertRefused(Map.of(GatewayConfig.VALKEY_TLS, "true",
            GatewayConfig.VALKEY_TLS_CA_FILE, "/no/such/ca.pem"),
        "WARMGATE_VALKEY_TLS_CA_FILE is invalid: cannot read the CA file /no/such/ca.pem");
    assertRefused(Map.of(GatewayConfig.VALKEY_TLS_VERIFY, "ca"),
        "WARMGATE_VALKEY_TLS_VERIFY=ca applies to TLS connections, but WARMGATE_VALKEY_TLS is "
            + "not true: set WARMGATE_VALKEY_TLS=true, or unset WARMGATE_VALKEY_TLS_VERIFY");
    assertRefused(Map.of(GatewayConfig.VALKEY_MODE, "cluster",
            GatewayConfig.VALKEY_READ_FROM, "replica-preferred"),
        "WARMGATE_VALKEY_READ_FROM='replica-preferred' is invalid: expected primary: the stream "
            + "gateway reads from primaries only; unset WARMGATE_VALKEY_READ_FROM for the gateway");
  }

  @Test
  void theValkeyAddressIsRequiredInEitherMode() {
    Map<String, String> env = minimal();
    env.remove(GatewayConfig.VALKEY_ADDRESSES);
    env.put(GatewayConfig.VALKEY_MODE, "cluster");
    assertThatThrownBy(() -> GatewayConfig.from(env)).hasMessage("WARMGATE_VALKEY_ADDRESSES is "
        + "not set: set it to the Valkey address, for example valkey:6379, or to a cluster's seed "
        + "nodes with WARMGATE_VALKEY_MODE=cluster");
  }

  @Test
  void primaryReadsMayBeSpelledOut() {
    Map<String, String> env = minimal();
    env.put(GatewayConfig.VALKEY_READ_FROM, "Primary");
    assertThat(GatewayConfig.from(env).valkeyEndpoint().readFrom())
        .isEqualTo(ValkeyEndpoint.ReadFrom.PRIMARY);
  }

  private static void assertRefused(Map<String, String> valkey, String message) {
    Map<String, String> env = minimal();
    env.putAll(valkey);
    assertThatThrownBy(() -> GatewayConfig.from(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }
}
