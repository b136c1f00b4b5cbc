package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.SslVerifyMode;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code WARMGATE_VALKEY_*} variables together: mode, addresses, TLS and its CA, peer
 * verification, replica reads. Each refused combination names the variables and the fix.
 */
class ValkeyConfigTest {

  @TempDir
  static Path dir;

  private static Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("WARMGATE_CACHE_NAME", "deals");
    env.put("WARMGATE_VALKEY_ADDRESSES", "valkey:6379");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private static ValkeyEndpoint endpoint(String... pairs) {
    return WarmGateConfig.from(env(pairs)).valkeyEndpoint().orElseThrow();
  }

  @Test
  void standaloneIsTheDefaultAndReadsThePrimary() {
    ValkeyEndpoint e = endpoint();
    assertThat(e.mode()).isEqualTo(ValkeyEndpoint.Mode.STANDALONE);
    assertThat(e.readFrom()).isEqualTo(ValkeyEndpoint.ReadFrom.PRIMARY);
    assertThat(e.isTls()).isFalse();
    assertThat(e.toString()).isEqualTo("standalone valkey:6379");
  }

  @Test
  void aClusterWithTlsACaFileAndReplicaReads() {
    TestCertificates pki = TestCertificates.issue(dir.resolve("pki"));
    ValkeyEndpoint e = endpoint("WARMGATE_VALKEY_MODE", "cluster",
        "WARMGATE_VALKEY_ADDRESSES", "10.0.0.3:6379,10.0.0.4:6379",
        "WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_VALKEY_TLS_CA_FILE", pki.caCertificate().toString(),
        "WARMGATE_VALKEY_TLS_VERIFY", "ca",
        "WARMGATE_VALKEY_READ_FROM", "replica-preferred",
        "WARMGATE_VALKEY_USERNAME", "agent",
        "WARMGATE_VALKEY_PASSWORD", "s3cret");

    assertThat(e.mode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    assertThat(e.isTls()).isTrue();
    assertThat(e.nodes()).allSatisfy(u -> assertThat(u.getVerifyMode()).isEqualTo(SslVerifyMode.CA));
    assertThat(e.readFrom()).isEqualTo(ValkeyEndpoint.ReadFrom.REPLICA_PREFERRED);
    assertThat(e.toString()).isEqualTo("cluster seeds 10.0.0.3:6379,10.0.0.4:6379, TLS (CA "
        + pki.caCertificate() + "), lookups read from replica-preferred").doesNotContain("s3cret");
  }

  @Test
  void theCaAsPemTextAndFullVerificationByDefault() {
    String pem = TestCertificates.issue(dir.resolve("pem")).caPem();
    ValkeyEndpoint e = endpoint("WARMGATE_VALKEY_TLS", "true", "WARMGATE_VALKEY_TLS_CA", pem);
    assertThat(e.nodes().get(0).getVerifyMode()).isEqualTo(SslVerifyMode.FULL);
    assertThat(e.toString()).isEqualTo("standalone valkey:6379, TLS (CA given as PEM)");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "two addresses in standalone mode | WARMGATE_VALKEY_ADDRESSES=a:1;b:2 | "
          + "WARMGATE_VALKEY_ADDRESSES='a:1,b:2' is invalid: expected exactly one host:port in "
          + "standalone mode; if these are a Valkey cluster's seed nodes, set "
          + "WARMGATE_VALKEY_MODE=cluster",
      "an unknown mode | WARMGATE_VALKEY_MODE=sharded | WARMGATE_VALKEY_MODE='sharded' is invalid: "
          + "expected standalone (one server) or cluster (a Valkey cluster's seed nodes)",
      "a seed listed twice | WARMGATE_VALKEY_MODE=cluster,WARMGATE_VALKEY_ADDRESSES=a:1;a:1 | "
          + "WARMGATE_VALKEY_ADDRESSES='a:1,a:1' is invalid: expected each host:port listed once",
      "a CA without TLS | WARMGATE_VALKEY_TLS_CA=pem | WARMGATE_VALKEY_TLS_CA is set but "
          + "WARMGATE_VALKEY_TLS is not true: set WARMGATE_VALKEY_TLS=true to connect with TLS, "
          + "or unset WARMGATE_VALKEY_TLS_CA",
      "a CA file with TLS off | WARMGATE_VALKEY_TLS=false,WARMGATE_VALKEY_TLS_CA_FILE=/ca.pem | "
          + "WARMGATE_VALKEY_TLS_CA_FILE is set but WARMGATE_VALKEY_TLS is not true: set "
          + "WARMGATE_VALKEY_TLS=true to connect with TLS, or unset WARMGATE_VALKEY_TLS_CA_FILE",
      "both CA variables | WARMGATE_VALKEY_TLS=true,WARMGATE_VALKEY_TLS_CA=pem,"
          + "WARMGATE_VALKEY_TLS_CA_FILE=/ca.pem | WARMGATE_VALKEY_TLS_CA_FILE and "
          + "WARMGATE_VALKEY_TLS_CA are both set: set only one (the CA as a file path, or as PEM "
          + "text)",
      "a missing CA file | WARMGATE_VALKEY_TLS=true,WARMGATE_VALKEY_TLS_CA_FILE=/no/such/ca.pem | "
          + "WARMGATE_VALKEY_TLS_CA_FILE is invalid: cannot read the CA file /no/such/ca.pem: "
          + "java.nio.file.NoSuchFileException: /no/such/ca.pem",
      "CA text that is no certificate | WARMGATE_VALKEY_TLS=true,WARMGATE_VALKEY_TLS_CA=hello | "
          + "WARMGATE_VALKEY_TLS_CA is invalid: the PEM text holds no certificate (No certificate "
          + "data found): expected PEM "
          + "'-----BEGIN CERTIFICATE-----' blocks of the CA that signed the servers' certificates",
      "an unknown verification | WARMGATE_VALKEY_TLS=true,WARMGATE_VALKEY_TLS_VERIFY=none | "
          + "WARMGATE_VALKEY_TLS_VERIFY='none' is invalid: expected full (the certificate must name "
          + "the host connected to) or ca (any name, signed by a trusted CA)",
      "CA-only verification without TLS | WARMGATE_VALKEY_TLS_VERIFY=ca | WARMGATE_VALKEY_TLS_VERIFY"
          + "=ca applies to TLS connections, but WARMGATE_VALKEY_TLS is not true: set "
          + "WARMGATE_VALKEY_TLS=true, or unset WARMGATE_VALKEY_TLS_VERIFY",
      "replica reads on one server | WARMGATE_VALKEY_READ_FROM=replica-preferred | "
          + "WARMGATE_VALKEY_READ_FROM=replica-preferred needs WARMGATE_VALKEY_MODE=cluster: a "
          + "standalone server has no replicas the agent can find; unset WARMGATE_VALKEY_READ_FROM "
          + "or point the agent at a cluster",
      "an unknown read preference | WARMGATE_VALKEY_MODE=cluster,WARMGATE_VALKEY_READ_FROM=replica "
          + "| WARMGATE_VALKEY_READ_FROM='replica' is invalid: expected primary or replica-preferred"})
  void aBadCombinationIsRefusedNamingTheVariablesAndTheFix(String name, String settings,
      String message) {
    Map<String, String> env = env();
    for (String setting : settings.split(",")) {
      String[] kv = setting.trim().split("=", 2);
      env.put(kv[0], kv[1].replace(';', ','));
    }
    assertThatThrownBy(() -> WarmGateConfig.from(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void aCaFileWithoutACertificateIsRefusedNamingTheFile() throws Exception {
    Path key = TestCertificates.issue(dir.resolve("key")).serverKey();
    assertThatThrownBy(() -> endpoint("WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_VALKEY_TLS_CA_FILE", key.toString()))
        .hasMessageStartingWith("WARMGATE_VALKEY_TLS_CA_FILE is invalid: the file " + key)
        .hasMessageContaining("BEGIN CERTIFICATE");
    Path empty = Files.writeString(dir.resolve("empty.pem"), "");
    assertThatThrownBy(() -> endpoint("WARMGATE_VALKEY_TLS", "true",
        "WARMGATE_VALKEY_TLS_CA_FILE", empty.toString()))
        .hasMessageStartingWith("WARMGATE_VALKEY_TLS_CA_FILE is invalid: the file " + empty);
  }

  @Test
  void atMostSixteenSeeds() {
    String seventeen = IntStream.rangeClosed(1, 17).mapToObj(i -> "10.0.0." + i + ":6379")
        .collect(Collectors.joining(","));
    assertThatThrownBy(() -> endpoint("WARMGATE_VALKEY_MODE", "cluster",
        "WARMGATE_VALKEY_ADDRESSES", seventeen))
        .hasMessage("WARMGATE_VALKEY_ADDRESSES='" + seventeen + "' is invalid: expected at most "
            + "16 seed nodes (a few of the cluster's nodes are enough to find the others)");
  }

  @Test
  void aSingleSeedIsEnoughForACluster() {
    assertThat(endpoint("WARMGATE_VALKEY_MODE", "cluster").nodes()).hasSize(1);
  }
}
