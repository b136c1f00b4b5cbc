package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.testing.ApiServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The webhook, run as the operator's service account with only the permissions of
 * k8s/rbac.yaml, issues its certificate into its Secret, sets the caBundle of its configuration
 * and configures a pod; a second replica, a follower under leader election, is ready and serves
 * the same certificate.
 */
class InjectionWebhookRbacIT {

  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String SERVICE_ACCOUNT = "warmgate-operator";
  static final String CONFIGURATION = "warmgate-operator";

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @Test
  void webhookWorksWithExactlyTheManifestPermissions() throws Exception {
    KubernetesClient admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName(OPERATOR_NAMESPACE).endMetadata().build()).create();
    try (InputStream rbac = Files.newInputStream(Path.of("k8s/rbac.yaml"))) {
      List<HasMetadata> objects = admin.load(rbac).items();
      objects.forEach(o -> admin.resource(o).create());
    }
    String ns = api.newNamespace("inject-rbac");
    admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("default").endMetadata().build()).create();
    CachePolicy policy = PodInjectorTest.policy(List.of());
    policy.getMetadata().setGeneration(null);
    policy.getMetadata().setNamespace(ns);
    admin.resource(policy).create();

    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEASE_NAMESPACE", OPERATOR_NAMESPACE,
        "POD_NAMESPACE", OPERATOR_NAMESPACE,
        "POD_NAME", "warmgate-operator-0",
        "WARMGATE_HTTP_PORT", "0",
        "WARMGATE_WEBHOOK_ENABLED", "true",
        "WARMGATE_WEBHOOK_PORT", "0",
        "WARMGATE_WEBHOOK_HOSTS", "127.0.0.1",
        "WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL", "1s"));
    try (KubernetesClient asOperator = api.clientAs(OPERATOR_NAMESPACE, SERVICE_ACCOUNT);
        WarmgateOperator leader = WarmgateOperator.start(settings, asOperator)) {
      admin.resource(new MutatingWebhookConfigurationBuilder()
          .withNewMetadata().withName(CONFIGURATION).endMetadata()
          .withWebhooks(InjectionWebhookIT.webhook("inject.warmgate.io", url(leader), ns))
          .build()).create();
      awaitInjection(admin, ns);
      Pod created = admin.pods().inNamespace(ns)
          .resource(InjectionWebhookIT.pod("deal-service", "deals")).create();
      assertThat(created.getSpec().getContainers()).allSatisfy(c ->
          assertThat(c.getEnv()).extracting(e -> e.getName()).contains(AgentVariables.CACHE_NAME));
      await().atMost(InjectionWebhookIT.WITHIN).until(leader::isReady);
      String issued = servedCertificate(admin);

      // A second replica waits for the Lease, yet is ready and serves the same certificate.
      OperatorSettings second = OperatorSettings.fromEnvironment(
          Map.of("POD_NAME", "warmgate-operator-1", "POD_NAMESPACE", OPERATOR_NAMESPACE,
              "WARMGATE_HTTP_PORT", "0", "WARMGATE_WEBHOOK_ENABLED", "true",
              "WARMGATE_WEBHOOK_PORT", "0", "WARMGATE_WEBHOOK_HOSTS", "127.0.0.1"));
      try (WarmgateOperator follower = WarmgateOperator.start(second, asOperator)) {
        await().atMost(InjectionWebhookIT.WITHIN).until(follower::isReady);
        assertThat(admin.leases().inNamespace(OPERATOR_NAMESPACE).withName("warmgate-operator")
            .get().getSpec().getHolderIdentity()).isEqualTo("warmgate-operator-0");
        admin.admissionRegistration().v1().mutatingWebhookConfigurations()
            .withName(CONFIGURATION).edit(c -> {
              c.getWebhooks().get(0).getClientConfig().setUrl(url(follower));
              return c;
            });
        // The API server switches URLs asynchronously; the follower's own counter tells.
        await().atMost(InjectionWebhookIT.WITHIN).untilAsserted(() -> {
          admin.pods().inNamespace(ns).resource(InjectionWebhookIT.pod("probe", "deals"))
              .dryRun().create();
          assertThat(InjectionWebhookIT.counter(follower, "injected")).isPositive();
        });
        assertThat(servedCertificate(admin)).isEqualTo(issued);
      }
    }
  }

  static String url(WarmgateOperator operator) {
    return "https://127.0.0.1:" + operator.webhookPort() + WebhookServer.PATH;
  }

  /** Waits until a dry-run pod comes back configured: the API server reaches the webhook. */
  static void awaitInjection(KubernetesClient admin, String ns) {
    await().atMost(InjectionWebhookIT.WITHIN).pollDelay(Duration.ZERO).untilAsserted(() ->
        assertThat(admin.pods().inNamespace(ns).resource(InjectionWebhookIT.pod("probe", "deals"))
            .dryRun().create().getMetadata().getAnnotations())
            .containsKey(PodInjector.ANNOTATION));
  }

  static String servedCertificate(KubernetesClient admin) {
    return admin.secrets().inNamespace(OPERATOR_NAMESPACE).withName("warmgate-operator-webhook-tls")
        .get().getData().get("tls.crt");
  }
}
