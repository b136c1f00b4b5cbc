package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.testing.ApiServer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rotating the webhook's CA never makes the API server refuse a replica (a real kube-apiserver,
 * calling two webhook replicas over TLS with {@code failurePolicy: Fail}).
 *
 * <p>Certificates here live minutes instead of years ({@link #MINUTES}), and the replicas' clock
 * runs ahead of the real one to reach the CA's renewal; the API server checks the certificates
 * against the real time, so every one issued must also be valid now. Replica B re-reads the
 * Secret only at start: it keeps serving the certificate the old CA signed, as a replica between
 * two of its refreshes does, while replica A publishes the next CA and then serves under it.
 */
class WebhookCaRotationIT {

  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String CONFIGURATION = "warmgate-rotation";
  /** CA 20 min, its successor published 10 min before it expires and trusted 1 min ahead. */
  static final CaRotation.Lifetimes MINUTES = new CaRotation.Lifetimes(Duration.ofMinutes(20),
      Duration.ofMinutes(10), Duration.ofMinutes(15), Duration.ofMinutes(3),
      Duration.ofMinutes(1));

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  volatile Duration ahead = Duration.ofMinutes(-11);
  final Clock clock = new Clock() {
    @Override
    public Instant instant() {
      return Instant.now().plus(ahead);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  };

  @Test
  void everyReplicaStaysTrustedWhileTheCaIsReplaced() {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName(OPERATOR_NAMESPACE).endMetadata().build()).create();
    String ns = api.newNamespace("rotation");
    admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("default").endMetadata().build()).create();
    CachePolicy policy = PodInjectorTest.policy(List.of("app"));
    policy.getMetadata().setGeneration(null);
    policy.getMetadata().setNamespace(ns);
    admin.resource(policy).create();

    // Issued 11 min back, so that the CA expires 9 min from now and its serving certificate 4.
    try (InjectionWebhook a = replica(admin, Duration.ofSeconds(1));
        InjectionWebhook b = replica(admin, Duration.ofHours(1))) {
      X509Certificate oldLeaf = b.certificateChain().get(0);
      assertThat(a.certificateChain().get(0)).isEqualTo(oldLeaf);
      admin.resource(new MutatingWebhookConfigurationBuilder()
          .withNewMetadata().withName(CONFIGURATION).endMetadata()
          .withWebhooks(failClosed("a.warmgate.io", a, ns), failClosed("b.warmgate.io", b, ns))
          .build()).create();
      await().atMost(InjectionWebhookIT.WITHIN).untilAsserted(() -> assertThat(
          admin.pods().inNamespace(ns).resource(InjectionWebhookIT.pod("probe", "deals"))
              .dryRun().create().getMetadata().getAnnotations())
          .containsKey(PodInjector.ANNOTATION));

      // The CA now has less than 10 min left: its successor is published, not yet used.
      ahead = Duration.ZERO;
      await().atMost(InjectionWebhookIT.WITHIN).until(() -> caBundle(admin).size() == 2);
      assertThat(a.certificateChain().get(0)).isEqualTo(oldLeaf);
      admitsEveryPodFor(admin, ns, Duration.ofSeconds(3));

      // 90 s later the serving certificate is due; the successor, trusted for a minute, signs.
      ahead = Duration.ofSeconds(90);
      await().atMost(InjectionWebhookIT.WITHIN)
          .until(() -> !a.certificateChain().get(0).equals(oldLeaf));
      X509Certificate newLeaf = a.certificateChain().get(0);
      List<X509Certificate> bundle = caBundle(admin);
      assertThat(bundle).hasSize(2);
      assertThat(bundle).as("a CA signed the new certificate")
          .anyMatch(ca -> WebhookCertificates.signedBy(newLeaf, ca));
      assertThat(bundle).as("another CA signed the old one")
          .anyMatch(ca -> WebhookCertificates.signedBy(oldLeaf, ca))
          .noneMatch(ca -> WebhookCertificates.signedBy(newLeaf, ca)
              && WebhookCertificates.signedBy(oldLeaf, ca));
      assertThat(b.certificateChain().get(0)).as("B still serves the old CA's certificate")
          .isEqualTo(oldLeaf);
      admitsEveryPodFor(admin, ns, Duration.ofSeconds(5));
    }
  }

  InjectionWebhook replica(KubernetesClient client, Duration refresh) {
    WebhookSettings settings = WebhookSettings.fromEnvironment(Map.of(
        "WARMGATE_WEBHOOK_ENABLED", "true",
        "WARMGATE_WEBHOOK_PORT", "0",
        "WARMGATE_WEBHOOK_NAMESPACE", OPERATOR_NAMESPACE,
        "WARMGATE_WEBHOOK_HOSTS", "127.0.0.1",
        "WARMGATE_WEBHOOK_CONFIGURATION", CONFIGURATION,
        "WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL", refresh.toSeconds() + "s"), OPERATOR_NAMESPACE);
    return InjectionWebhook.start(settings, Set.of(), client, new SimpleMeterRegistry(), MINUTES,
        clock);
  }

  static MutatingWebhook failClosed(String name, InjectionWebhook replica, String ns) {
    MutatingWebhook webhook = InjectionWebhookIT.webhook(name,
        "https://127.0.0.1:" + replica.port() + WebhookServer.PATH, ns);
    webhook.setFailurePolicy("Fail");
    return webhook;
  }

  /** Every dry-run pod is admitted by both replicas (a refused TLS handshake fails it). */
  static void admitsEveryPodFor(KubernetesClient admin, String ns, Duration period) {
    Instant end = Instant.now().plus(period);
    int admitted = 0;
    while (Instant.now().isBefore(end)) {
      assertThat(admin.pods().inNamespace(ns).resource(InjectionWebhookIT.pod("probe", "deals"))
          .dryRun().create().getMetadata().getAnnotations()).containsKey(PodInjector.ANNOTATION);
      admitted++;
    }
    assertThat(admitted).isPositive();
  }

  static List<X509Certificate> caBundle(KubernetesClient admin) {
    String bundle = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
        .withName(CONFIGURATION).get().getWebhooks().get(0).getClientConfig().getCaBundle();
    return bundle == null ? List.of() : Certificates.parseCertificates(
        new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII));
  }
}
