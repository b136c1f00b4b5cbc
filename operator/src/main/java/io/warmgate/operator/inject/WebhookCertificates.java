package io.warmgate.operator.inject;

import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The CAs and serving certificate the webhook's Secret holds.
 *
 * <p>Three CAs at most, so that the API server never meets a certificate it does not trust: the
 * {@code ca} signs the serving certificate; the {@code nextCa} is published in the caBundle before
 * it signs anything; the {@code previousCa} stays in the caBundle while replicas that have not
 * re-read the Secret may still serve a certificate it signed.
 *
 * @param ca the CA that signs serving certificates
 * @param nextCa its successor, trusted ahead of use
 * @param previousCa its predecessor (certificate only: it signs nothing more)
 * @param serving the serving certificate and key
 */
record WebhookCertificates(Optional<Certificates.Issued> ca,
    Optional<Certificates.Issued> nextCa, Optional<X509Certificate> previousCa,
    Optional<Certificates.Issued> serving) {

  static final WebhookCertificates NONE =
      new WebhookCertificates(Optional.empty(), Optional.empty(), Optional.empty(),
          Optional.empty());

  /** The PEM caBundle: every CA here that has not expired, the signing one first. */
  String trustBundle(Instant now) {
    return Stream.of(ca.map(Certificates.Issued::certificate), nextCa.map(
            Certificates.Issued::certificate), previousCa)
        .flatMap(Optional::stream)
        .filter(c -> c.getNotAfter().toInstant().isAfter(now))
        .map(Certificates::pem)
        .collect(Collectors.joining());
  }

  /** Whether {@code ca} signed {@code certificate} (all the webhook's CAs share one name). */
  static boolean signedBy(X509Certificate certificate, X509Certificate ca) {
    try {
      certificate.verify(ca.getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
