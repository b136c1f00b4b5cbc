package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The CA rotation over a CA's whole life, in minutes instead of years. At every step the caBundle
 * must trust the certificate just issued and the one served before it, which replicas that have
 * not re-read the Secret still serve.
 */
class CaRotationTest {

  static final List<String> HOSTS = List.of("127.0.0.1");
  /** CA 100 min, successor published 30 min before, serving 40 min renewed 10 min before. */
  static final CaRotation.Lifetimes MINUTES = new CaRotation.Lifetimes(Duration.ofMinutes(100),
      Duration.ofMinutes(30), Duration.ofMinutes(40), Duration.ofMinutes(10),
      Duration.ofMinutes(5));
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  Instant now = START;
  final Clock clock = new Clock() {
    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  };
  final CaRotation rotation = new CaRotation(HOSTS, MINUTES, clock);

  @Test
  void everyCertificateAnyReplicaServesIsTrustedThroughTheCasWholeLife() {
    WebhookCertificates first = rotation.next(WebhookCertificates.NONE);
    X509Certificate firstCa = first.ca().orElseThrow().certificate();
    assertThat(first.nextCa()).isEmpty();
    assertThat(first.previousCa()).isEmpty();
    assertThat(rotation.next(first)).as("nothing due a minute later").isSameAs(first);

    WebhookCertificates state = first;
    X509Certificate served = leaf(first);
    for (int minute = 1; minute <= 200; minute++) {
      now = START.plus(Duration.ofMinutes(minute));
      WebhookCertificates next = rotation.next(state);
      String bundle = next.trustBundle(now);
      assertThat(trusts(bundle, served)).as("minute %d: the certificate served before", minute)
          .isTrue();
      assertThat(trusts(bundle, leaf(next))).as("minute %d: the certificate issued", minute)
          .isTrue();
      served = leaf(next);
      state = next;
    }
    assertThat(state.ca().orElseThrow().certificate()).as("the CA was replaced")
        .isNotEqualTo(firstCa);
  }

  @Test
  void aSuccessorIsPublishedBeforeItSignsAndItsPredecessorStaysTrustedUntilItExpires() {
    WebhookCertificates issued = rotation.next(WebhookCertificates.NONE);
    X509Certificate ca = issued.ca().orElseThrow().certificate();
    // Serving certificates are renewed at minutes 30 and 60; the second one ends with its CA.
    now = START.plus(Duration.ofMinutes(30));
    issued = rotation.next(issued);
    now = START.plus(Duration.ofMinutes(60));
    issued = rotation.next(issued);
    assertThat(leaf(issued).getNotAfter()).isEqualTo(ca.getNotAfter());

    now = START.plus(Duration.ofMinutes(71));
    WebhookCertificates published = rotation.next(issued);
    assertThat(published.nextCa()).as("published 29 min before the CA expires").isPresent();
    assertThat(published.serving()).as("the serving certificate is still fresh")
        .isSameAs(issued.serving());
    assertThat(published.trustBundle(now)).isEqualTo(Certificates.pem(ca)
        + published.nextCa().get().certificatePem());

    now = START.plus(Duration.ofMinutes(91));
    WebhookCertificates promoted = rotation.next(published);
    assertThat(promoted.ca()).isEqualTo(published.nextCa());
    assertThat(promoted.nextCa()).isEmpty();
    assertThat(promoted.previousCa()).contains(ca);
    assertThat(WebhookCertificates.signedBy(leaf(promoted),
        promoted.ca().get().certificate())).isTrue();

    now = START.plus(Duration.ofMinutes(101));
    WebhookCertificates expired = rotation.next(promoted);
    assertThat(expired.previousCa()).as("dropped once expired").isEmpty();
    assertThat(expired.serving()).isSameAs(promoted.serving());
  }

  @Test
  void aSuccessorTooNewToSignLeavesAStillValidCertificateInPlace() {
    WebhookCertificates issued = rotation.next(WebhookCertificates.NONE);
    // An operator down from minute 61 to 91 meets a CA with 9 min left and, at once, a serving
    // certificate due for renewal that already ends with its CA.
    now = START.plus(Duration.ofMinutes(61));
    WebhookCertificates stale = rotation.next(issued);
    assertThat(leaf(stale).getNotAfter()).isEqualTo(issued.ca().get().certificate().getNotAfter());
    now = START.plus(Duration.ofMinutes(91));
    WebhookCertificates published = rotation.next(stale);
    assertThat(published.nextCa()).isPresent();
    assertThat(published.serving()).isSameAs(stale.serving());
    now = now.plus(Duration.ofMinutes(4));
    assertThat(rotation.next(published)).as("the successor signs only after 5 min").isSameAs(
        published);
    now = now.plus(Duration.ofMinutes(1));
    WebhookCertificates signed = rotation.next(published);
    assertThat(WebhookCertificates.signedBy(leaf(signed), published.nextCa().get().certificate()))
        .isTrue();
  }

  @Test
  void aMissingCaIsReplacedAtOnceAndACertificateItDidNotSignIsIssuedAgain() {
    WebhookCertificates issued = rotation.next(WebhookCertificates.NONE);
    WebhookCertificates other = new CaRotation(HOSTS, MINUTES, clock)
        .next(WebhookCertificates.NONE);
    WebhookCertificates mixed = new WebhookCertificates(issued.ca(), issued.nextCa(),
        issued.previousCa(), other.serving());
    WebhookCertificates mended = rotation.next(mixed);
    assertThat(WebhookCertificates.signedBy(leaf(mended), issued.ca().get().certificate()))
        .isTrue();

    WebhookCertificates noCa = new WebhookCertificates(java.util.Optional.empty(),
        issued.nextCa(), issued.previousCa(), issued.serving());
    WebhookCertificates replaced = rotation.next(noCa);
    assertThat(replaced.ca()).isPresent();
    assertThat(WebhookCertificates.signedBy(leaf(replaced), replaced.ca().get().certificate()))
        .isTrue();
  }

  @Test
  void newHostsGetANewCertificateUnderTheSameCa() {
    WebhookCertificates issued = rotation.next(WebhookCertificates.NONE);
    WebhookCertificates moved = new CaRotation(List.of("127.0.0.1", "webhook.warmgate.svc"),
        MINUTES, clock).next(issued);
    assertThat(moved.ca()).isEqualTo(issued.ca());
    assertThat(Certificates.hosts(leaf(moved))).contains("webhook.warmgate.svc");
  }

  static X509Certificate leaf(WebhookCertificates certificates) {
    return certificates.serving().orElseThrow().certificate();
  }

  /** Whether a client trusting {@code bundle} accepts {@code leaf} at the test's time. */
  boolean trusts(String bundle, X509Certificate leaf) {
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      Set<TrustAnchor> anchors = factory.generateCertificates(
              new ByteArrayInputStream(bundle.getBytes(StandardCharsets.US_ASCII))).stream()
          .map(c -> new TrustAnchor((X509Certificate) c, null)).collect(Collectors.toSet());
      PKIXParameters parameters = new PKIXParameters(anchors);
      parameters.setRevocationEnabled(false);
      parameters.setDate(Date.from(now));
      CertPathValidator.getInstance("PKIX")
          .validate(factory.generateCertPath(List.of(leaf)), parameters);
      return true;
    } catch (CertPathValidatorException e) {
      return false;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
