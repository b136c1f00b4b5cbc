package io.warmgate.operator.inject;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's own CAs and serving certificate, kept in one Secret so that every replica serves
 * the same certificate under the same CA (each replica issuing its own would make them overwrite
 * each other's caBundle).
 *
 * <p>{@link #get()} reads the Secret, lets {@link CaRotation} renew what is due, and writes the
 * result with optimistic locking; replicas racing to write retry on the winner's Secret. The
 * material it returns carries the whole caBundle, every CA a replica may be serving under.
 */
final class SelfSignedCertificates {

  static final String CA_CERT = "ca.crt";
  static final String CA_KEY = "ca.key";
  static final String NEXT_CA_CERT = "next-ca.crt";
  static final String NEXT_CA_KEY = "next-ca.key";
  static final String PREVIOUS_CA_CERT = "previous-ca.crt";
  static final String TLS_CERT = "tls.crt";
  static final String TLS_KEY = "tls.key";

  private static final Logger log = LoggerFactory.getLogger(SelfSignedCertificates.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String secretName;
  private final List<String> hosts;
  private final CaRotation rotation;
  private final Clock clock;

  /**
   * @param namespace the operator's namespace, holding the Secret
   * @param secretName the Secret's name
   * @param hosts DNS names and IP addresses the serving certificate covers
   * @throws IllegalArgumentException if {@code hosts} is empty
   */
  SelfSignedCertificates(KubernetesClient client, String namespace, String secretName,
      List<String> hosts, CaRotation.Lifetimes lifetimes, Clock clock) {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("the webhook's serving certificate needs host names; set "
          + "WARMGATE_WEBHOOK_HOSTS, such as warmgate-operator-webhook.warmgate-system.svc");
    }
    this.client = client;
    this.namespace = namespace;
    this.secretName = secretName;
    this.hosts = List.copyOf(hosts);
    this.rotation = new CaRotation(hosts, lifetimes, clock);
    this.clock = clock;
  }

  /**
   * The current material, renewing and storing it first when due.
   *
   * @throws KubernetesClientException if the Secret cannot be read or written
   */
  ServingMaterial get() {
    for (int attempt = 1; ; attempt++) {
      Secret secret = client.secrets().inNamespace(namespace).withName(secretName).get();
      WebhookCertificates stored = secret == null ? WebhookCertificates.NONE : read(secret);
      WebhookCertificates desired = rotation.next(stored);
      if (desired == stored) {
        return material(desired);
      }
      try {
        write(secret, desired);
        if (desired.serving() != stored.serving()) {
          log.info("Issued the webhook's serving certificate for {} (valid until {}) into Secret "
              + "{}/{}", hosts, desired.serving().get().certificate().getNotAfter().toInstant(),
              namespace, secretName);
        }
        return material(desired);
      } catch (KubernetesClientException e) {
        // Another replica wrote first: use (or renew) what it wrote.
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  private ServingMaterial material(WebhookCertificates certificates) {
    Certificates.Issued serving = certificates.serving().orElseThrow();
    return new ServingMaterial(serving.key(), List.of(serving.certificate()),
        Optional.of(certificates.trustBundle(clock.instant())));
  }

  private void write(Secret current, WebhookCertificates desired) {
    Map<String, String> data = new LinkedHashMap<>();
    Certificates.Issued ca = desired.ca().orElseThrow();
    Certificates.Issued serving = desired.serving().orElseThrow();
    data.put(CA_CERT, base64(ca.certificatePem()));
    data.put(CA_KEY, base64(ca.keyPem()));
    desired.nextCa().ifPresent(next -> {
      data.put(NEXT_CA_CERT, base64(next.certificatePem()));
      data.put(NEXT_CA_KEY, base64(next.keyPem()));
    });
    desired.previousCa().ifPresent(previous ->
        data.put(PREVIOUS_CA_CERT, base64(Certificates.pem(previous))));
    data.put(TLS_CERT, base64(serving.certificatePem()));
    data.put(TLS_KEY, base64(serving.keyPem()));
    Secret secret = new SecretBuilder()
        .withNewMetadata().withName(secretName).withNamespace(namespace)
        .addToLabels("app.kubernetes.io/managed-by", "warmgate-operator")
        .withResourceVersion(current == null ? null : current.getMetadata().getResourceVersion())
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withData(data)
        .build();
    if (current == null) {
      client.secrets().inNamespace(namespace).resource(secret).create();
    } else {
      client.secrets().inNamespace(namespace).resource(secret).update();
    }
  }

  /** What the Secret holds; an unreadable entry counts as absent, so it is issued again. */
  private static WebhookCertificates read(Secret secret) {
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    return new WebhookCertificates(issued(secret, data, CA_CERT, CA_KEY),
        issued(secret, data, NEXT_CA_CERT, NEXT_CA_KEY),
        certificate(secret, data, PREVIOUS_CA_CERT),
        issued(secret, data, TLS_CERT, TLS_KEY));
  }

  private static Optional<Certificates.Issued> issued(Secret secret, Map<String, String> data,
      String certificateKey, String keyKey) {
    if (!data.containsKey(keyKey)) {
      return Optional.empty();
    }
    try {
      return certificate(secret, data, certificateKey).map(certificate ->
          new Certificates.Issued(Certificates.parseKey(decode(data.get(keyKey))), certificate));
    } catch (IllegalArgumentException e) {
      unreadable(secret, keyKey, e);
      return Optional.empty();
    }
  }

  private static Optional<X509Certificate> certificate(Secret secret, Map<String, String> data,
      String key) {
    if (!data.containsKey(key)) {
      return Optional.empty();
    }
    try {
      return Optional.of(Certificates.parseCertificates(decode(data.get(key))).get(0));
    } catch (IllegalArgumentException e) {
      unreadable(secret, key, e);
      return Optional.empty();
    }
  }

  private static void unreadable(Secret secret, String key, IllegalArgumentException e) {
    log.warn("Secret {}/{} holds no usable {} ({}); issuing it again",
        secret.getMetadata().getNamespace(), secret.getMetadata().getName(), key, e.getMessage());
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
  }
}
