package io.warmgate.operator.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisClusterExtension;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.TestCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What {@code L2Reachable} says of each kind of Valkey and each mistake a policy can make about
 * it, on real servers: a plain one, a TLS one, one with a password, a cluster of three primaries
 * with a replica each (nodes killed), and a web server where Valkey should be.
 */
class ValkeyProbeIT {

  @RegisterExtension
  static final RedisExtension plain = new RedisExtension();
  @RegisterExtension
  static final RedisExtension tls = RedisExtension.withTls();
  @RegisterExtension
  static final RedisExtension protectedServer = RedisExtension.withPassword("s3cret");
  /** A cluster of this class alone: killed nodes run again in the next test. */
  @RegisterExtension
  static final RedisClusterExtension cluster = new RedisClusterExtension();

  ValkeyClients clients;

  @BeforeEach
  void open() {
    clients = new ValkeyClients(Duration.ofSeconds(2));
  }

  @AfterEach
  void close() {
    clients.close();
  }

  @Test
  void aStandaloneServerIsConnected() {
    ProbeResult result = probe(standalone(address(plain), false));

    assertThat(result.reachable()).isTrue();
    assertThat(result.reason()).isEqualTo("Connected");
  }

  @Test
  void aHealthyClusterReportsItsSlotsAndNodes() {
    ProbeResult result = probe(cluster(cluster.addresses().subList(0, 1)));

    assertThat(result.reachable()).as(result.message()).isTrue();
    assertThat(result.reason()).isEqualTo("Connected");
    assertThat(result.message())
        .isEqualTo("Valkey cluster ok: 16384 of 16384 slots served by 3 primaries, 3 replicas; "
            + "every node answered PING");
  }

  @Test
  void aLostReplicaDegradesTheClusterAndIsNamed() {
    RedisCluster.Node replica = cluster.nodes().stream().filter(n -> !n.primary()).findFirst()
        .orElseThrow();
    ValkeyEndpoint endpoint = cluster(cluster.addresses());
    assertThat(probe(endpoint).reason()).isEqualTo("Connected");

    cluster.kill(replica);

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      ProbeResult result = probe(endpoint);
      assertThat(result.reachable()).as(result.message()).isTrue();
      assertThat(result.reason()).isEqualTo("ClusterDegraded");
      assertThat(result.message()).contains("16384 of 16384 slots served")
          .contains("node " + replica.address() + " (replica of 127.0.0.1:");
    });
  }

  @Test
  void slotsWithoutAnyNodeLeftTakeTheClusterDownAndNameTheNodes() {
    RedisCluster.Node primary = cluster.primaries().get(0);
    RedisCluster.Node replica = cluster.nodes().stream()
        .filter(n -> primary.id().equals(n.primaryId())).findFirst().orElseThrow();
    ValkeyEndpoint endpoint = cluster(cluster.addresses());
    assertThat(probe(endpoint).reason()).isEqualTo("Connected");

    cluster.kill(replica);
    cluster.kill(primary);

    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      ProbeResult result = probe(endpoint);
      assertThat(result.reachable()).isFalse();
      assertThat(result.reason()).as(result.message()).isEqualTo("ClusterDown");
      assertThat(result.message()).contains("cluster_state:fail")
          .contains(primary.address()).contains(replica.address())
          .contains(16384 - primary.slots() + " of 16384 slots served");
    });
  }

  @Test
  void clusterModeAgainstAStandaloneServerNamesTheField() {
    ProbeResult result = probe(cluster(List.of(address(plain))));

    assertThat(result.reason()).isEqualTo("ModeMismatch");
    assertThat(result.message()).contains(address(plain)).contains("runs standalone")
        .contains("spec.valkey.mode: Standalone");
  }

  @Test
  void standaloneModeAgainstAClusterNodeNamesTheField() {
    ProbeResult result = probe(standalone(cluster.addresses().get(0), false));

    assertThat(result.reason()).isEqualTo("ModeMismatch");
    assertThat(result.message()).contains("runs in cluster mode")
        .contains("spec.valkey.mode: Cluster");
  }

  @Test
  void tlsAgainstAPlainServerIsAMismatch() {
    ProbeResult result = probe(standalone(address(plain), true));

    assertThat(result.reason()).as(result.message()).isEqualTo("TlsMismatch");
    assertThat(result.message()).contains(address(plain)).contains("spec.valkey.tls: false");
  }

  @Test
  void plainAgainstATlsServerIsAMismatch() {
    ProbeResult result = probe(standalone(address(tls), false));

    assertThat(result.reason()).as(result.message()).isEqualTo("TlsMismatch");
    assertThat(result.message()).contains(address(tls)).contains("spec.valkey.tls: true");
  }

  @Test
  void aTlsServerSignedByAPrivateCaNeedsThatCa() {
    TestCertificates certificates = tls.tlsCertificates().orElseThrow();

    ProbeResult untrusted = probe(standalone(address(tls), true));
    ProbeResult trusted = probe(new ValkeyEndpoint(List.of(address(tls)), false, true, true,
        certificates.caPem(), null, null));

    assertThat(untrusted.reason()).as(untrusted.message()).isEqualTo("TlsFailed");
    assertThat(untrusted.message()).contains("spec.valkey.tlsCaSecretRef");
    assertThat(trusted.reason()).as(trusted.message()).isEqualTo("Connected");
  }

  @Test
  void aWrongOrMissingPasswordIsToldApart() {
    ProbeResult missing = probe(standalone(address(protectedServer), false));
    ProbeResult wrong = probe(new ValkeyEndpoint(List.of(address(protectedServer)), false, false,
        true, null, null, "wrong".toCharArray()));
    ProbeResult right = probe(new ValkeyEndpoint(List.of(address(protectedServer)), false, false,
        true, null, null, "s3cret".toCharArray()));

    assertThat(missing.reason()).as(missing.message()).isEqualTo("AuthFailed");
    assertThat(missing.message()).contains("requires a password")
        .contains("spec.valkey.passwordSecretKeyRef");
    assertThat(wrong.reason()).as(wrong.message()).isEqualTo("AuthFailed");
    assertThat(wrong.message()).contains("refused the credentials");
    assertThat(right.reason()).as(right.message()).isEqualTo("Connected");
    assertThat(right.unprotected()).isNull();
  }

  /** Issue 28 item 10: what another service answered never reaches a policy's status. */
  @Test
  void aWebServerIsNotValkeyAndItsReplyIsNotRepeated() throws IOException {
    HttpServer web = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    web.start();
    try {
      String address = "127.0.0.1:" + web.getAddress().getPort();

      ProbeResult result = probe(standalone(address, false));

      assertThat(result.reason()).as(result.message()).isEqualTo("NotValkey");
      assertThat(result.message()).contains(address).contains("spec.valkey.addresses")
          .doesNotContain("HTTP").doesNotContain("400");
    } finally {
      web.stop(0);
    }
  }

  private ProbeResult probe(ValkeyEndpoint endpoint) {
    return clients.probe("it", endpoint);
  }

  private static ValkeyEndpoint standalone(String address, boolean withTls) {
    return new ValkeyEndpoint(List.of(address), false, withTls, true, null, null, null);
  }

  private static ValkeyEndpoint cluster(List<String> seeds) {
    return new ValkeyEndpoint(seeds, true, false, true, null, null, null);
  }

  private static String address(RedisExtension server) {
    return server.host() + ":" + server.port();
  }
}
