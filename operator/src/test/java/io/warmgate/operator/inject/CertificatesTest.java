package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificatesTest {

  final Clock clock = Clock.systemUTC();

  @Test
  void servingCertificateChainsToTheCaAndCoversTheHosts() throws Exception {
    Certificates.Issued ca = Certificates.newCa("test-ca", Duration.ofDays(10), clock);
    Certificates.Issued serving = Certificates.newServing(ca,
        List.of("webhook.warmgate-system.svc", "127.0.0.1"), Duration.ofDays(1), clock);

    serving.certificate().verify(ca.certificate().getPublicKey());
    assertThat(ca.certificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(serving.certificate().getBasicConstraints()).isEqualTo(-1);
    assertThat(serving.certificate().getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1");
    assertThat(Certificates.hosts(serving.certificate()))
        .containsExactly("webhook.warmgate-system.svc", "127.0.0.1");
  }

  @Test
  void pemRoundTrips() {
    Certificates.Issued ca = Certificates.newCa("test-ca", Duration.ofDays(10), clock);
    List<X509Certificate> parsed = Certificates.parseCertificates(ca.certificatePem());
    assertThat(parsed).containsExactly(ca.certificate());
    assertThat(Certificates.parseKey(ca.keyPem())).isEqualTo(ca.key());
  }

  @Test
  void malformedPemIsNamed() {
    assertThatThrownBy(() -> Certificates.parseKey("not a key"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no unencrypted PEM private key");
    assertThatThrownBy(() -> Certificates.parseCertificates(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PEM certificate");
  }

  @Test
  void keyManagerServesTheLatestCertificate() {
    Certificates.Issued ca = Certificates.newCa("test-ca", Duration.ofDays(10), clock);
    Certificates.Issued first = Certificates.newServing(ca, List.of("a"), Duration.ofDays(1),
        clock);
    Certificates.Issued second = Certificates.newServing(ca, List.of("b"), Duration.ofDays(1),
        clock);
    ServingKeyManager keys = new ServingKeyManager();

    keys.use(first.key(), List.of(first.certificate()));
    String before = keys.chooseEngineServerAlias("EC", null, null);
    keys.use(second.key(), List.of(second.certificate()));
    String after = keys.chooseEngineServerAlias("EC", null, null);

    assertThat(keys.getCertificateChain(after)).containsExactly(second.certificate());
    assertThat(keys.getPrivateKey(after)).isEqualTo(second.key());
    // A handshake that picked the alias just before the swap still completes consistently.
    assertThat(keys.getCertificateChain(before)).containsExactly(first.certificate());
    assertThat(keys.getPrivateKey(before)).isEqualTo(first.key());
  }
}
