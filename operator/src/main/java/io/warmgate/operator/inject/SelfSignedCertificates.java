package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's own CA and serving certificate, kept in one Secret so that every replica serves
 * the same certificate under the same CA (each replica issuing its own would make them overwrite
 * each other's caBundle).
 *
 * <p>{@link #get()} returns the Secret's material when it covers the hosts for at least
 * {@link #RENEW_BEFORE}; otherwise it issues a new serving certificate (and a new CA only when the
 * old one is missing or within {@link #CA_RENEW_BEFORE} of expiry, so the caBundle rarely changes)
 * and writes it with optimistic locking. Replicas racing to write retry on the winner's Secret.
 */
final class SelfSignedCertificates {

  static final Duration CA_VALIDITY = Duration.ofDays(3650);
  static final Duration CA_RENEW_BEFORE = Duration.ofDays(365);
  static final Duration SERVING_VALIDITY = Duration.ofDays(365);
  static final Duration RENEW_BEFORE = Duration.ofDays(30);

  static final String CA_CERT = "ca.crt";
  static final String CA_KEY = "ca.key";
  static final String TLS_CERT = "tls.crt";
  static final String TLS_KEY = "tls.key";

  private static final Logger log = LoggerFactory.getLogger(SelfSignedCertificates.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String secretName;
  private final List<String> hosts;
  private final Clock clock;

  /**
   * @param namespace the operator's namespace, holding the Secret
   * @param secretName the Secret's name
   * @param hosts DNS names and IP addresses the serving certificate covers
   * @throws IllegalArgumentException if {@code hosts} is empty
   */
  SelfSignedCertificates(KubernetesClient client, String namespace, String secretName,
      List<String> hosts, Clock clock) {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("the webhook's serving certificate needs host names; set "
          + "WARMGATE_WEBHOOK_HOSTS, such as warmgate-operator-webhook.warmgate-system.svc");
    }
    this.client = client;
    this.namespace = namespace;
    this.secretName = secretName;
    this.hosts = List.copyOf(hosts);
    this.clock = clock;
  }

  /**
   * The current material, issuing and storing it first when needed.
   *
   * @throws KubernetesClientException if the Secret cannot be read or written
   */
  ServingMaterial get() {
    for (int attempt = 1; ; attempt++) {
      Secret secret = client.secrets().inNamespace(namespace).withName(secretName).get();
      Optional<ServingMaterial> stored = secret == null ? Optional.empty() : read(secret);
      if (stored.isPresent() && fresh(stored.get())) {
        return stored.get();
      }
      Certificates.Issued ca = secret == null ? null : readCa(secret)
          .filter(c -> validFor(c.certificate(), CA_RENEW_BEFORE)).orElse(null);
      if (ca == null) {
        ca = Certificates.newCa("warmgate-webhook-ca", CA_VALIDITY, clock);
      }
      Certificates.Issued serving =
          Certificates.newServing(ca, hosts, SERVING_VALIDITY, clock);
      Secret desired = new SecretBuilder()
          .withNewMetadata().withName(secretName).withNamespace(namespace)
          .addToLabels("app.kubernetes.io/managed-by", "warmgate-operator")
          .withResourceVersion(secret == null ? null : secret.getMetadata().getResourceVersion())
          .endMetadata()
          .withType("kubernetes.io/tls")
          .withData(Map.of(CA_CERT, base64(ca.certificatePem()), CA_KEY, base64(ca.keyPem()),
              TLS_CERT, base64(serving.certificatePem()), TLS_KEY, base64(serving.keyPem())))
          .build();
      try {
        if (secret == null) {
          client.secrets().inNamespace(namespace).resource(desired).create();
        } else {
          client.secrets().inNamespace(namespace).resource(desired).update();
        }
        log.info("Issued the webhook's serving certificate for {} (valid until {}) into Secret "
            + "{}/{}", hosts, serving.certificate().getNotAfter().toInstant(), namespace,
            secretName);
        return new ServingMaterial(serving.key(), List.of(serving.certificate()),
            Optional.of(ca.certificatePem()));
      } catch (KubernetesClientException e) {
        // Another replica wrote first: use (or renew) what it wrote.
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  private boolean fresh(ServingMaterial material) {
    X509Certificate leaf = material.chain().get(0);
    return validFor(leaf, RENEW_BEFORE)
        && new HashSet<>(Certificates.hosts(leaf)).containsAll(hosts);
  }

  private boolean validFor(X509Certificate certificate, Duration margin) {
    Instant now = clock.instant();
    return !certificate.getNotBefore().toInstant().isAfter(now)
        && certificate.getNotAfter().toInstant().isAfter(now.plus(margin));
  }

  private static Optional<ServingMaterial> read(Secret secret) {
    try {
      Map<String, String> data = secret.getData();
      if (data == null || !data.containsKey(TLS_CERT) || !data.containsKey(TLS_KEY)
          || !data.containsKey(CA_CERT)) {
        return Optional.empty();
      }
      return Optional.of(new ServingMaterial(Certificates.parseKey(decode(data.get(TLS_KEY))),
          Certificates.parseCertificates(decode(data.get(TLS_CERT))),
          Optional.of(decode(data.get(CA_CERT)))));
    } catch (IllegalArgumentException e) {
      log.warn("Secret {}/{} holds no usable serving certificate ({}); issuing a new one",
          secret.getMetadata().getNamespace(), secret.getMetadata().getName(), e.getMessage());
      return Optional.empty();
    }
  }

  private static Optional<Certificates.Issued> readCa(Secret secret) {
    try {
      Map<String, String> data = secret.getData();
      if (data == null || !data.containsKey(CA_CERT) || !data.containsKey(CA_KEY)) {
        return Optional.empty();
      }
      return Optional.of(new Certificates.Issued(Certificates.parseKey(decode(data.get(CA_KEY))),
          Certificates.parseCertificates(decode(data.get(CA_CERT))).get(0)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
  }
}
