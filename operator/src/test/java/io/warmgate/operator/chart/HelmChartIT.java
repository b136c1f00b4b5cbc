package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.testing.Helm;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Helm chart: lint, rendering with default and with every optional part switched on, the
 * same RBAC as the tested operator/k8s/rbac.yaml, and a server-side dry-run apply of both
 * renderings against a real kube-apiserver.
 */
class HelmChartIT {

  static final String NAMESPACE = "warmgate-system";
  static final Path NON_DEFAULT = Path.of("src/test/resources/chart/values-non-default.yaml");

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  static KubernetesClient client;

  @BeforeAll
  static void cluster() {
    client = api.client();
    for (String ns : List.of(NAMESPACE, "team-a", "team-b")) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
          .endMetadata().build()).create();
    }
  }

  @Test
  void lintPassesStrictlyWithDefaultAndNonDefaultValues() throws Exception {
    Helm.succeed("lint", Helm.chart().toString(), "--strict", "--kube-version", Helm.KUBE_VERSION);
    Helm.succeed("lint", Helm.chart().toString(), "--strict", "--kube-version", Helm.KUBE_VERSION,
        "--values", NON_DEFAULT.toAbsolutePath().toString());
  }

  @Test
  void defaultValuesRenderAHardenedOperatorWithTheWebhook() throws Exception {
    List<HasMetadata> objects = load(Helm.template(NAMESPACE));

    assertThat(kinds(objects)).containsExactlyInAnyOrder("ServiceAccount", "ClusterRole",
        "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Role", "Role", "RoleBinding",
        "RoleBinding", "Service", "Service", "Deployment", "MutatingWebhookConfiguration",
        "PodDisruptionBudget", "NetworkPolicy");
    Deployment deployment = one(objects, Deployment.class);
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    var pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getAffinity().getPodAntiAffinity()
        .getPreferredDuringSchedulingIgnoredDuringExecution().get(0).getPodAffinityTerm()
        .getTopologyKey()).isEqualTo("kubernetes.io/hostname");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    Container operator = pod.getContainers().get(0);
    assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(operator.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(operator.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(operator.getResources().getRequests())
        .containsKeys("cpu", "memory", "ephemeral-storage");
    assertThat(operator.getResources().getLimits()).containsKeys("memory", "ephemeral-storage")
        .doesNotContainKey("cpu");
    NetworkPolicy network = one(objects, NetworkPolicy.class);
    assertThat(network.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    assertThat(network.getSpec().getIngress()).flatExtracting(r -> r.getPorts())
        .extracting(p -> p.getPort().getStrVal()).containsExactly("webhook", "http");
    assertThat(network.getSpec().getIngress()).allMatch(r -> r.getFrom().isEmpty());
    assertThat(network.getSpec().getEgress()).hasSize(1)
        .allMatch(r -> r.getTo().isEmpty() && r.getPorts().isEmpty());
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(operator.getImage()).isEqualTo("warmgate/warmgate-operator:0.1.0");
    assertThat(env(operator)).containsEntry("WARMGATE_LEADER_ELECTION", "true")
        .containsEntry("WARMGATE_NAMESPACES", "")
        .containsEntry("WARMGATE_WEBHOOK_ENABLED", "true")
        .containsEntry("WARMGATE_WEBHOOK_CERT_MODE", "SelfSigned")
        .containsEntry("WARMGATE_WEBHOOK_CONFIGURATION", "warmgate-operator")
        .containsEntry("WARMGATE_WEBHOOK_CERT_SECRET", "warmgate-operator-webhook-tls")
        .containsEntry("WARMGATE_WEBHOOK_HOSTS", "warmgate-operator-webhook.warmgate-system.svc,"
            + "warmgate-operator-webhook.warmgate-system.svc.cluster.local");

    MutatingWebhook webhook = one(objects, MutatingWebhookConfiguration.class).getWebhooks().get(0);
    assertThat(webhook.getFailurePolicy()).isEqualTo("Ignore");
    assertThat(webhook.getSideEffects()).isEqualTo("NoneOnDryRun");
    assertThat(webhook.getReinvocationPolicy()).isEqualTo("IfNeeded");
    assertThat(webhook.getClientConfig().getService().getName())
        .isEqualTo("warmgate-operator-webhook");
    assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
    assertThat(webhook.getObjectSelector().getMatchExpressions().get(0).getKey())
        .isEqualTo("warmgate.io/cache-policy");
  }

  @Test
  void nonDefaultValuesRenderEveryOptionalPart() throws Exception {
    List<HasMetadata> objects = load(Helm.template(NAMESPACE, "--values",
        NON_DEFAULT.toAbsolutePath().toString()));

    assertThat(kinds(objects)).contains("PodDisruptionBudget", "ServiceMonitor", "Certificate",
        "Issuer", "PodMonitor", "PrometheusRule", "ConfigMap");
    assertThat(objects).filteredOn(o -> o instanceof ClusterRoleBinding)
        .extracting(o -> o.getMetadata().getName()).doesNotContain("wg");
    assertThat(objects).filteredOn(o -> o instanceof RoleBinding
            && o.getMetadata().getName().equals("wg"))
        .extracting(o -> o.getMetadata().getNamespace()).containsExactly("team-a", "team-b");
    Deployment deployment = one(objects, Deployment.class);
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(operator.getImage()).startsWith("warmgate/warmgate-operator@sha256:");
    assertThat(env(operator)).containsEntry("WARMGATE_NAMESPACES", "team-a,team-b")
        .containsEntry("WARMGATE_WEBHOOK_CERT_MODE", "Files")
        .containsEntry("WARMGATE_WEBHOOK_CERT_DIR", "/etc/warmgate/webhook-tls")
        .doesNotContainKey("WARMGATE_WEBHOOK_HOSTS");
    MutatingWebhookConfiguration configuration = one(objects, MutatingWebhookConfiguration.class);
    assertThat(configuration.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", NAMESPACE + "/wg-webhook");
    assertThat(configuration.getWebhooks().get(0).getFailurePolicy()).isEqualTo("Fail");
    NetworkPolicy network = one(objects, NetworkPolicy.class);
    assertThat(network.getSpec().getIngress().get(1).getFrom().get(0).getNamespaceSelector()
        .getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring");
    assertThat(network.getSpec().getEgress().get(0).getPorts()).extracting(p -> p.getPort()
        .getIntVal()).containsExactly(443, 6443, 6379, 53);
  }

  /**
   * kube-score, a chart linter, finds nothing in either rendering but the two choices the chart
   * states in values.yaml and its README: no CPU limit, and IfNotPresent instead of Always.
   */
  @Test
  void kubeScoreFindsNothingButTheTwoStatedChoices() throws Exception {
    List<String> stated = List.of("CPU limit is not set", "ImagePullPolicy is not set to Always");
    for (String manifests : List.of(Helm.template(NAMESPACE), Helm.template(NAMESPACE,
        "--values", NON_DEFAULT.toAbsolutePath().toString()))) {
      List<String> findings = KubeScore.findings(manifests);
      assertThat(findings).as("kube-score findings").allMatch(f -> stated.stream()
          .anyMatch(f::endsWith)).hasSize(stated.size());
    }
  }

  @Test
  void severalReplicasWithoutLeaderElectionAreRefused() throws Exception {
    Helm.Result result = Helm.run("template", "warmgate", Helm.chart().toString(),
        "--kube-version", Helm.KUBE_VERSION, "--set", "replicas=2",
        "--set", "leaderElection.enabled=false");
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr()).contains("replicas > 1 needs leaderElection.enabled=true");
  }

  @Test
  void rbacHasTheRulesOfTheTestedManifest() throws Exception {
    List<HasMetadata> chart = load(Helm.template(NAMESPACE));
    List<HasMetadata> manifest;
    try (InputStream in = Files.newInputStream(Path.of("k8s/rbac.yaml"))) {
      manifest = client.load(in).items();
    }
    for (HasMetadata expected : manifest) {
      HasMetadata rendered = chart.stream()
          .filter(o -> o.getKind().equals(expected.getKind())
              && o.getMetadata().getName().equals(expected.getMetadata().getName()))
          .findFirst().orElse(null);
      assertThat(rendered).withFailMessage("the chart renders no %s %s that k8s/rbac.yaml has; "
          + "add it to charts/warmgate/templates", expected.getKind(),
          expected.getMetadata().getName()).isNotNull();
      String what = expected.getKind() + " " + expected.getMetadata().getName();
      if (expected instanceof ClusterRole role) {
        assertThat(((ClusterRole) rendered).getRules()).as("rules of %s; keep "
            + "charts/warmgate/templates in step with k8s/rbac.yaml", what)
            .isEqualTo(role.getRules());
      } else if (expected instanceof Role role) {
        assertThat(((Role) rendered).getRules()).as("rules of %s; keep "
            + "charts/warmgate/templates in step with k8s/rbac.yaml", what)
            .isEqualTo(role.getRules());
      } else if (expected instanceof ClusterRoleBinding binding) {
        assertThat(((ClusterRoleBinding) rendered).getRoleRef()).as(what)
            .isEqualTo(binding.getRoleRef());
        assertThat(((ClusterRoleBinding) rendered).getSubjects()).as(what)
            .isEqualTo(binding.getSubjects());
      } else if (expected instanceof RoleBinding binding) {
        assertThat(((RoleBinding) rendered).getRoleRef()).as(what)
            .isEqualTo(binding.getRoleRef());
        assertThat(((RoleBinding) rendered).getSubjects()).as(what)
            .isEqualTo(binding.getSubjects());
      }
    }
  }

  @Test
  void bothRenderingsPassAServerSideDryRunApply() throws Exception {
    // CRDs ship in crds/ and are installed for real, as helm does before the templates.
    for (HasMetadata crd : load(Helm.succeed("show", "crds", Helm.chart().toString()))) {
      client.resource(crd).forceConflicts().serverSideApply();
    }
    // Stand-ins for the cert-manager and Prometheus Operator CRDs the optional parts use.
    stubCrd("cert-manager.io", "certificates", "Certificate");
    stubCrd("cert-manager.io", "issuers", "Issuer");
    stubCrd("monitoring.coreos.com", "servicemonitors", "ServiceMonitor");
    stubCrd("monitoring.coreos.com", "podmonitors", "PodMonitor");
    stubCrd("monitoring.coreos.com", "prometheusrules", "PrometheusRule");

    for (List<HasMetadata> rendering : List.of(load(Helm.template(NAMESPACE)),
        load(Helm.template(NAMESPACE, "--values", NON_DEFAULT.toAbsolutePath().toString())))) {
      for (HasMetadata object : rendering) {
        HasMetadata applied = client.resource(object).dryRun().fieldManager("helm-chart-it")
            .forceConflicts().serverSideApply();
        assertThat(applied.getMetadata().getName()).isEqualTo(object.getMetadata().getName());
      }
    }
    assertThat(client.apps().deployments().inNamespace(NAMESPACE).list().getItems())
        .as("dry runs persist nothing").isEmpty();
  }

  @Test
  void upgradeKeepsTheCaBundleTheOperatorWrote() throws Exception {
    String ns = api.newNamespace("helm");
    Path kubeconfig = Files.createTempFile("kubeconfig", ".yaml");
    try {
      Files.writeString(kubeconfig, api.kubeconfig());
      String[] release = {"--namespace", ns, "--kubeconfig", kubeconfig.toString(),
          "--set", "fullnameOverride=wg-upgrade"};
      Helm.succeed(concat(new String[] {"install", "warmgate", Helm.chart().toString()}, release));
      String bundle = Base64.getEncoder().encodeToString(
          "-----BEGIN CERTIFICATE-----\nissued by the operator\n".getBytes(StandardCharsets.UTF_8));
      client.admissionRegistration().v1().mutatingWebhookConfigurations().withName("wg-upgrade")
          .edit(c -> {
            c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(bundle));
            return c;
          });

      Helm.succeed(concat(new String[] {"upgrade", "warmgate", Helm.chart().toString(),
          "--set", "logging.level=DEBUG"}, release));

      assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations()
          .withName("wg-upgrade").get().getWebhooks())
          .allSatisfy(w -> assertThat(w.getClientConfig().getCaBundle()).isEqualTo(bundle));
      assertThat(env(client.apps().deployments().inNamespace(ns).withName("wg-upgrade").get()
          .getSpec().getTemplate().getSpec().getContainers().get(0)))
          .containsEntry("WARMGATE_LOG_LEVEL", "DEBUG");
    } finally {
      Files.deleteIfExists(kubeconfig);
    }
  }

  private static String[] concat(String[] first, String[] second) {
    return java.util.stream.Stream.concat(java.util.Arrays.stream(first),
        java.util.Arrays.stream(second)).toArray(String[]::new);
  }

  private static void stubCrd(String group, String plural, String kind) {
    CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(plural + "." + group).endMetadata()
        .withNewSpec().withGroup(group).withScope("Namespaced")
        .withNewNames().withPlural(plural).withKind(kind).endNames()
        .addNewVersion().withName("v1").withServed(true).withStorage(true)
        .withNewSchema().withNewOpenAPIV3Schema().withType("object")
        .withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
        .endVersion().endSpec().build();
    client.resource(crd).serverSideApply();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      CustomResourceDefinition current = client.apiextensions().v1().customResourceDefinitions()
          .withName(crd.getMetadata().getName()).get();
      return current.getStatus() != null && current.getStatus().getConditions() != null
          && current.getStatus().getConditions().stream().anyMatch(
              c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    });
  }

  static List<HasMetadata> load(String yaml) {
    return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  static List<String> kinds(List<HasMetadata> objects) {
    return objects.stream().map(HasMetadata::getKind).toList();
  }

  static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> type) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(found).as("rendered %s objects", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  static Map<String, String> env(Container container) {
    return container.getEnv().stream().filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }
}
