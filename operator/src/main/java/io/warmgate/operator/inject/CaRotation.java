package io.warmgate.operator.inject;

import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when the webhook's CA and serving certificate are renewed, so that the API server
 * trusts every certificate any replica serves, during a rotation too.
 *
 * <p>A new CA is published (added to the caBundle) {@link Lifetimes#caRenewBefore()} before the
 * current one expires, and signs only once it has been published for {@link
 * Lifetimes#trustLead()}, long enough for every replica's caBundle check and the API server's
 * informer to have seen it. The CA it replaces stays in the caBundle until it expires, because
 * replicas that have not re-read the Secret still serve certificates it signed. A serving
 * certificate never outlives its CA. Only a missing or expired CA is replaced at once; nothing
 * could have trusted it ahead.
 */
final class CaRotation {

  /**
   * How long certificates live and when they are renewed.
   *
   * @param caValidity a CA's lifetime
   * @param caRenewBefore how long before its CA expires a successor is published
   * @param servingValidity a serving certificate's lifetime (at most its CA's remaining one)
   * @param servingRenewBefore how long before it expires a serving certificate is renewed
   * @param trustLead how long a successor CA is published before it signs
   */
  record Lifetimes(Duration caValidity, Duration caRenewBefore, Duration servingValidity,
      Duration servingRenewBefore, Duration trustLead) {

    static final Lifetimes DEFAULT = new Lifetimes(Duration.ofDays(3650), Duration.ofDays(365),
        Duration.ofDays(365), Duration.ofDays(30), Duration.ofHours(1));
  }

  static final String CA_NAME = "warmgate-webhook-ca";

  private static final Logger log = LoggerFactory.getLogger(CaRotation.class);

  private final List<String> hosts;
  private final Lifetimes lifetimes;
  private final Clock clock;

  CaRotation(List<String> hosts, Lifetimes lifetimes, Clock clock) {
    this.hosts = List.copyOf(hosts);
    this.lifetimes = lifetimes;
    this.clock = clock;
  }

  /** What to store next; {@code stored} itself when nothing is due. */
  WebhookCertificates next(WebhookCertificates stored) {
    Instant now = clock.instant();
    Optional<Certificates.Issued> ca = stored.ca().filter(c -> validAt(c.certificate(), now));
    Optional<Certificates.Issued> nextCa =
        stored.nextCa().filter(c -> validAt(c.certificate(), now));
    Optional<X509Certificate> previousCa = stored.previousCa().filter(c -> validAt(c, now));
    if (ca.isEmpty()) {
      if (stored.equals(WebhookCertificates.NONE)) {
        log.info("Issuing the webhook's CA");
      } else {
        log.warn("The webhook's CA is missing or expired; a new one is trusted from now on, and "
            + "the API server refuses replicas serving under the old one until they re-read it");
      }
      ca = Optional.of(Certificates.newCa(CA_NAME, lifetimes.caValidity(), clock));
      nextCa = Optional.empty();
    }
    if (nextCa.isEmpty() && expiresWithin(ca.get().certificate(), lifetimes.caRenewBefore(), now)) {
      nextCa = Optional.of(Certificates.newCa(CA_NAME, lifetimes.caValidity(), clock));
      log.info("Published the webhook's next CA (valid until {}); it signs from {} on",
          nextCa.get().certificate().getNotAfter().toInstant(), trustedSince(nextCa.get())
              .plus(lifetimes.trustLead()));
    }
    Optional<Certificates.Issued> serving = stored.serving();
    X509Certificate signer = ca.get().certificate();
    boolean servable = serving.isPresent() && servable(serving.get().certificate(), signer, now);
    if (!servable || expiresWithin(serving.get().certificate(), lifetimes.servingRenewBefore(),
        now)) {
      if (nextCa.isPresent()
          && !trustedSince(nextCa.get()).plus(lifetimes.trustLead()).isAfter(now)) {
        previousCa = Optional.of(signer);
        ca = nextCa;
        nextCa = Optional.empty();
        servable = false;
      }
      Instant caEnd = ca.get().certificate().getNotAfter().toInstant();
      Duration validity = min(lifetimes.servingValidity(), Duration.between(now, caEnd));
      // A successor still too new to sign: keep a certificate that is still valid rather than
      // issue one that would expire with its CA sooner.
      if (!servable || now.plus(validity).isAfter(
          serving.get().certificate().getNotAfter().toInstant())) {
        serving = Optional.of(Certificates.newServing(ca.get(), hosts, validity, clock));
      }
    }
    WebhookCertificates next = new WebhookCertificates(ca, nextCa, previousCa, serving);
    return next.equals(stored) ? stored : next;
  }

  /** When a CA began to be trusted: its issue time (its validity starts a little earlier). */
  private static Instant trustedSince(Certificates.Issued ca) {
    return ca.certificate().getNotBefore().toInstant().plus(Certificates.BACKDATE);
  }

  private boolean servable(X509Certificate leaf, X509Certificate ca, Instant now) {
    return validAt(leaf, now) && WebhookCertificates.signedBy(leaf, ca)
        && new HashSet<>(Certificates.hosts(leaf)).containsAll(hosts);
  }

  private static boolean validAt(X509Certificate certificate, Instant now) {
    return !certificate.getNotBefore().toInstant().isAfter(now)
        && certificate.getNotAfter().toInstant().isAfter(now);
  }

  private static boolean expiresWithin(X509Certificate certificate, Duration margin,
      Instant now) {
    return !certificate.getNotAfter().toInstant().isAfter(now.plus(margin));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
