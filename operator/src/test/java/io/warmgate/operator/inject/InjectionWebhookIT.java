package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The webhook registered with a real kube-apiserver by URL on 127.0.0.1, with the operator's own
 * self-signed certificate (its CA put into the caBundle by the operator). The configuration calls
 * the webhook twice per pod, so every pod also exercises re-invocation, and it has no object
 * selector, so the webhook itself must leave unlabelled pods alone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InjectionWebhookIT {

  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String CONFIGURATION = "warmgate-it";
  static final Duration WITHIN = Duration.ofSeconds(60);

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static KubernetesClient admin;
  static WarmgateOperator operator;
  static String ns;
  static CachePolicy policy;

  @BeforeAll
  static void startOperatorAndRegisterWebhook() {
    admin = api.client();
    api.applyCrd(ApiServer.cachePolicyCrd());
    admin.namespaces().resource(new NamespaceBuilder().withNewMetadata()
        .withName(OPERATOR_NAMESPACE).endMetadata().build()).create();
    ns = api.newNamespace("inject");
    // No controller-manager here creates the namespace's default service account pods need.
    admin.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("default").endMetadata().build()).create();
    CachePolicy desired = PodInjectorTest.policy(List.of("app"));
    desired.getMetadata().setGeneration(null);
    desired.getMetadata().setNamespace(ns);
    policy = admin.resource(desired).create();

    operator = WarmgateOperator.start(OperatorSettings.fromEnvironment(Map.ofEntries(
        Map.entry("WARMGATE_LEADER_ELECTION", "false"),
        Map.entry("WARMGATE_HTTP_PORT", "0"),
        Map.entry("WARMGATE_VALKEY_ALLOWED_ADDRESSES", Policies.LOOPBACK),
        Map.entry("WARMGATE_VALKEY_TIMEOUT", "1s"),
        Map.entry("WARMGATE_SHUTDOWN_TIMEOUT", "5s"),
        Map.entry("WARMGATE_WEBHOOK_ENABLED", "true"),
        Map.entry("WARMGATE_WEBHOOK_PORT", "0"),
        Map.entry("WARMGATE_WEBHOOK_NAMESPACE", OPERATOR_NAMESPACE),
        Map.entry("WARMGATE_WEBHOOK_HOSTS", "127.0.0.1"),
        Map.entry("WARMGATE_WEBHOOK_CONFIGURATION", CONFIGURATION),
        Map.entry("WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL", "1s"))), admin);

    String url = "https://127.0.0.1:" + operator.webhookPort() + WebhookServer.PATH;
    admin.resource(new MutatingWebhookConfigurationBuilder()
        .withNewMetadata().withName(CONFIGURATION).endMetadata()
        .withWebhooks(webhook("inject.warmgate.io", url, ns), webhook("again.warmgate.io", url, ns))
        .build()).create();

    await().atMost(WITHIN).untilAsserted(() -> {
      String bundle = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
          .withName(CONFIGURATION).get().getWebhooks().get(0).getClientConfig().getCaBundle();
      assertThat(bundle).as("caBundle set by the operator").isNotBlank();
      assertThat(new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII))
          .contains("BEGIN CERTIFICATE");
    });
    // The API server picks up the configuration asynchronously; dry runs have no side effects.
    await().atMost(WITHIN).untilAsserted(() -> assertThat(
        admin.pods().inNamespace(ns).resource(pod("probe", "deals")).dryRun().create()
            .getMetadata().getAnnotations()).containsKey(PodInjector.ANNOTATION));
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  /** A webhook for pod CREATEs in {@code namespace}, as the chart registers it (no selector). */
  static MutatingWebhook webhook(String name, String url, String namespace) {
    return new MutatingWebhookBuilder()
        .withName(name)
        .withNewClientConfig().withUrl(url).endClientConfig()
        .addNewRule().withApiGroups("").withApiVersions("v1").withOperations("CREATE")
        .withResources("pods").withScope("Namespaced").endRule()
        .withNewNamespaceSelector().addNewMatchExpression().withKey("kubernetes.io/metadata.name")
        .withOperator("In").withValues(namespace).endMatchExpression().endNamespaceSelector()
        .withFailurePolicy("Ignore")
        .withSideEffects("NoneOnDryRun")
        .withReinvocationPolicy("IfNeeded")
        .withAdmissionReviewVersions("v1")
        .withTimeoutSeconds(5)
        .build();
  }

  /** A pod with an app container that sets one variable itself, and a proxy container. */
  static Pod pod(String prefix, String policyName) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withGenerateName(prefix + "-")
        .addToLabels("app", prefix).endMetadata();
    if (policyName != null) {
      pod.editMetadata().addToLabels(PodInjector.POLICY_LABEL, policyName).endMetadata();
    }
    return pod.withNewSpec()
        .addNewContainer().withName("app").withImage("registry.invalid/app:1")
        .addNewEnv().withName("WARMGATE_L1_TTL").withValue("5s").endEnv()
        .addNewEnv().withName("JAVA_OPTS").withValue("-Xmx1g").endEnv()
        .endContainer()
        .addNewContainer().withName("proxy").withImage("registry.invalid/proxy:1").endContainer()
        .endSpec().build();
  }

  static Pod create(Pod pod) {
    return admin.pods().inNamespace(ns).resource(pod).create();
  }

  @Test
  @Order(1)
  void injectedEnvironmentIsExactlyRight() {
    Pod created = create(pod("deal-service", "deals"));

    Container app = created.getSpec().getContainers().get(0);
    List<EnvVar> expected = new ArrayList<>(List.of(
        PodInjectorTest.value("WARMGATE_L1_TTL", "5s"),
        PodInjectorTest.value("JAVA_OPTS", "-Xmx1g")));
    PodInjectorTest.expectedAgentEnv().stream()
        .filter(e -> !e.getName().equals("WARMGATE_L1_TTL")).forEach(expected::add);
    assertThat(app.getEnv()).containsExactlyElementsOf(expected);
    assertThat(created.getSpec().getContainers().get(1).getEnv())
        .as("proxy is not listed in spec.injection.containers").isNullOrEmpty();

    PodInjector.InjectionRecord record = PodInjector.InjectionRecord.parse(
        created.getMetadata().getAnnotations().get(PodInjector.ANNOTATION)).orElseThrow();
    assertThat(record.policy()).isEqualTo("deals");
    assertThat(record.generation()).isEqualTo(policy.getMetadata().getGeneration());
    assertThat(record.containers()).containsExactly("app");
    assertThat(record.keptFromPod()).isEqualTo(Map.of("app", List.of("WARMGATE_L1_TTL")));
  }

  @Test
  @Order(2)
  void reinvocationAddsNothing() {
    double unchangedBefore = counter("unchanged");
    Pod first = create(pod("deal-service", "deals"));
    assertThat(counter("unchanged")).as("the second webhook saw the first one's output")
        .isGreaterThan(unchangedBefore);

    // The injected pod submitted again passes through both webhooks unchanged.
    Pod again = new PodBuilder(first).editMetadata().withName(null).withResourceVersion(null)
        .withUid(null).withCreationTimestamp(null).endMetadata().withStatus(null).build();
    Pod second = admin.pods().inNamespace(ns).resource(again).dryRun().create();
    assertThat(second.getSpec().getContainers()).extracting(Container::getEnv)
        .isEqualTo(first.getSpec().getContainers().stream().map(Container::getEnv).toList());
    assertThat(second.getMetadata().getAnnotations())
        .isEqualTo(first.getMetadata().getAnnotations());
  }

  @Test
  @Order(3)
  void unlabelledPodIsUntouched() {
    double before = counter("not_labelled");
    Pod created = create(pod("plain", null));

    assertThat(created.getSpec().getContainers().get(0).getEnv()).extracting(EnvVar::getName)
        .containsExactly("WARMGATE_L1_TTL", "JAVA_OPTS");
    assertThat(created.getSpec().getContainers().get(1).getEnv()).isNullOrEmpty();
    assertThat(created.getMetadata().getAnnotations()).doesNotContainKey(PodInjector.ANNOTATION);
    assertThat(counter("not_labelled")).as("the API server did send it").isGreaterThan(before);
  }

  @Test
  @Order(4)
  void unknownPolicyAdmitsThePodUnchangedWithAnEventAndAMetric() {
    double before = counter("policy_not_found");
    Pod created = create(pod("orphan", "no-such-policy"));

    assertThat(created.getSpec().getContainers().get(0).getEnv()).hasSize(2);
    assertThat(created.getMetadata().getAnnotations()).doesNotContainKey(PodInjector.ANNOTATION);
    assertThat(counter("policy_not_found")).isGreaterThan(before);
    await().atMost(WITHIN).untilAsserted(() -> assertThat(
        admin.v1().events().inNamespace(ns).list().getItems())
        .filteredOn(e -> InjectionEvents.POLICY_NOT_FOUND.equals(e.getReason()))
        .singleElement()
        .satisfies(e -> {
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getMessage()).contains("no-such-policy").contains("orphan-*")
              .contains("Create the CachePolicy or fix the label");
        }));
  }

  @Test
  @Order(4)
  void podsOfADeploymentPolicyGetTheWarmReadinessGateOnceThroughBothWebhooks() {
    CachePolicy desired = PodInjectorTest.policy(List.of("app"));
    desired.getMetadata().setGeneration(null);
    desired.getMetadata().setNamespace(ns);
    desired.getMetadata().setName("deals-deployment");
    desired.getSpec().setCacheName("deals-deployment");
    desired.getSpec().setTargetRef(new TargetRef(TargetKind.Deployment, "deal-service"));
    admin.resource(desired).create();

    Pod created = create(pod("deployment-pod", "deals-deployment"));

    assertThat(created.getSpec().getReadinessGates()).extracting(g -> g.getConditionType())
        .containsExactly(PodInjector.READINESS_GATE);
    assertThat(create(pod("rollout-pod", "deals")).getSpec().getReadinessGates())
        .as("a Rollout's canary is held at its pause step, not by readiness").isNullOrEmpty();

    CachePolicy statefulSet = PodInjectorTest.policy(List.of("app"));
    statefulSet.getMetadata().setGeneration(null);
    statefulSet.getMetadata().setNamespace(ns);
    statefulSet.getMetadata().setName("deals-statefulset");
    statefulSet.getSpec().setCacheName("deals-statefulset");
    statefulSet.getSpec().setTargetRef(new TargetRef(TargetKind.StatefulSet, "deal-store"));
    admin.resource(statefulSet).create();

    Pod stored = create(pod("statefulset-pod", "deals-statefulset"));

    assertThat(stored.getSpec().getReadinessGates()).extracting(g -> g.getConditionType())
        .containsExactly(PodInjector.READINESS_GATE);
    assertThat(stored.getSpec().getContainers().get(0).getEnv())
        .filteredOn(e -> "WARMGATE_POD_TEMPLATE_HASH".equals(e.getName())).singleElement()
        .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath())
            .isEqualTo("metadata.labels['controller-revision-hash']"));
  }

  @Test
  @Order(5)
  void operatorDownStillAdmitsPods() {
    operator.close();

    Pod created = create(pod("while-down", "deals"));

    assertThat(created.getMetadata().getName()).startsWith("while-down-");
    assertThat(created.getSpec().getContainers().get(0).getEnv()).hasSize(2);
    assertThat(created.getMetadata().getAnnotations()).doesNotContainKey(PodInjector.ANNOTATION);
  }

  /** {@code warmgate_injection_total{result}} as the operator's /metrics shows it. */
  static double counter(String result) {
    return counter(operator, result);
  }

  /** {@code warmgate_injection_total{result}} as {@code replica}'s /metrics shows it. */
  static double counter(WarmgateOperator replica, String result) {
    try {
      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + replica.httpPort() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      Matcher m = Pattern.compile("^warmgate_injection_total\\{result=\"" + result
          + "\",?\\} (\\S+)$", Pattern.MULTILINE).matcher(metrics);
      assertThat(m.find()).as("warmgate_injection_total{result=%s} in /metrics", result).isTrue();
      return Double.parseDouble(m.group(1));
    } catch (java.io.IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

}
