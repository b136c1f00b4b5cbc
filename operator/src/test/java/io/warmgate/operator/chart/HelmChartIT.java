package io.warmgate.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.testing.Helm;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Helm chart: lint, rendering with default and with every optional part switched on, the
 * same RBAC as the tested operator/k8s/rbac.yaml, the stream gateway's environment as its own
 * GatewayConfig reads it, and a server-side dry-run apply of every rendering against a real
 * kube-apiserver.
 */
class HelmChartIT {

  static final String NAMESPACE = "warmgate-system";
  static final Path NON_DEFAULT = Path.of("src/test/resources/chart/values-non-default.yaml");
  /** The stream gateway on one Valkey server, with TLS and a password. */
  static final Path GATEWAY_STANDALONE =
      Path.of("src/test/resources/chart/values-stream-gateway-standalone.yaml");
  /** The stream gateway on a Valkey cluster with every gateway option set. */
  static final Path GATEWAY_CLUSTER =
      Path.of("src/test/resources/chart/values-stream-gateway-cluster.yaml");
  static final List<Path> VALUE_FILES = List.of(NON_DEFAULT, GATEWAY_STANDALONE, GATEWAY_CLUSTER);

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
    for (Path values : VALUE_FILES) {
      Helm.succeed("lint", Helm.chart().toString(), "--strict", "--kube-version",
          Helm.KUBE_VERSION, "--values", values.toAbsolutePath().toString());
    }
  }

  @Test
  void defaultValuesRenderAHardenedOperatorWithTheWebhook() throws Exception {
    List<HasMetadata> objects = load(Helm.template(NAMESPACE));

    assertThat(kinds(objects)).containsExactlyInAnyOrder("ServiceAccount", "ClusterRole",
        "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding",
        "ClusterRoleBinding", "Role", "Role", "RoleBinding",
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
        .containsEntry("WARMGATE_VALKEY_ALLOWED_ADDRESSES", "*.svc,*.svc.cluster.local")
        .containsEntry("WARMGATE_WEBHOOK_CERT_SECRET", "warmgate-operator-webhook-tls")
        .containsEntry("WARMGATE_WEBHOOK_HOSTS", "warmgate-operator-webhook.warmgate-system.svc,"
            + "warmgate-operator-webhook.warmgate-system.svc.cluster.local");

    MutatingWebhook webhook = one(objects, MutatingWebhookConfiguration.class).getWebhooks().get(0);
    assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
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
    assertThat(objects).filteredOn(o -> o instanceof RoleBinding
            && o.getMetadata().getName().equals("wg-secrets"))
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
    assertThat(configuration.getWebhooks().get(0).getFailurePolicy()).isEqualTo("Ignore");
    NetworkPolicy network = one(objects, NetworkPolicy.class);
    assertThat(network.getSpec().getIngress().get(0).getFrom().get(0).getIpBlock().getCidr())
        .as("the webhook port admits the control plane's range only").isEqualTo("192.0.2.0/28");
    assertThat(network.getSpec().getIngress().get(1).getFrom().get(0).getNamespaceSelector()
        .getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring");
    assertThat(network.getSpec().getEgress().get(0).getPorts()).extracting(p -> p.getPort()
        .getIntVal()).containsExactly(443, 6443, 6379, 53);
  }

  /**
   * kube-score, a chart linter, finds nothing in any rendering but the two choices the chart
   * states in values.yaml and its README, once per Deployment (the operator's, the gateway's): no
   * CPU limit, and IfNotPresent instead of Always.
   */
  @Test
  void kubeScoreFindsNothingButTheTwoStatedChoices() throws Exception {
    List<String> stated = List.of("CPU limit is not set", "ImagePullPolicy is not set to Always");
    for (String manifests : renderings()) {
      long deployments = load(manifests).stream().filter(Deployment.class::isInstance).count();
      List<String> findings = KubeScore.findings(manifests);
      assertThat(findings).as("kube-score findings").allMatch(f -> stated.stream()
          .anyMatch(f::endsWith)).hasSize(stated.size() * (int) deployments);
    }
  }

  /**
   * Issue 28 item 1: no rendering grants list or watch on Secrets; get on them is bound
   * cluster-wide only when watching all namespaces without rbac.secretNamespaces.
   */
  @Test
  void secretsAreReadableByNameOnlyAndOnlyInTheNamespacesGranted() throws Exception {
    for (String rendering : renderings()) {
      for (HasMetadata o : load(rendering)) {
        List<io.fabric8.kubernetes.api.model.rbac.PolicyRule> rules =
            o instanceof ClusterRole c ? c.getRules() : o instanceof Role r ? r.getRules()
                : List.of();
        assertThat(rules).filteredOn(rule -> rule.getResources().contains("secrets"))
            .as("rules on Secrets of %s %s", o.getKind(), o.getMetadata().getName())
            .allSatisfy(rule -> assertThat(rule.getVerbs()).doesNotContain("list", "watch"));
      }
    }
    List<HasMetadata> narrowed = load(Helm.template(NAMESPACE, "--set",
        "rbac.secretNamespaces={team-a}"));
    assertThat(narrowed).filteredOn(o -> o instanceof ClusterRoleBinding)
        .extracting(o -> o.getMetadata().getName()).doesNotContain("warmgate-operator-secrets");
    assertThat(narrowed).filteredOn(o -> o instanceof RoleBinding b
            && b.getRoleRef().getName().equals("warmgate-operator-secrets"))
        .extracting(o -> o.getMetadata().getNamespace()).containsExactly("team-a");
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

    for (String rendering : renderings()) {
      for (HasMetadata object : load(rendering)) {
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
      String bundle = caBundleAsTheOperatorWritesIt("wg-upgrade");

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

  /**
   * A GitOps tool renders the chart without a cluster, so {@code lookup} finds no caBundle: the
   * rendering leaves the field out, and applying it again (server-side, as Argo CD with
   * ServerSideApply and Flux do) keeps the caBundle the operator wrote, which another field manager
   * owns.
   */
  @Test
  void aGitOpsApplyOfTheOfflineRenderingKeepsTheCaBundle() throws Exception {
    MutatingWebhookConfiguration rendered = one(load(Helm.template(NAMESPACE, "--set",
        "fullnameOverride=wg-gitops")), MutatingWebhookConfiguration.class);
    assertThat(rendered.getWebhooks()).allSatisfy(w ->
        assertThat(w.getClientConfig().getCaBundle()).as("left out, not empty").isNull());
    client.resource(rendered).fieldManager("argocd-controller").forceConflicts()
        .serverSideApply();
    String bundle = caBundleAsTheOperatorWritesIt("wg-gitops");

    rendered.getWebhooks().get(0).setTimeoutSeconds(7);
    client.resource(rendered).fieldManager("argocd-controller").forceConflicts()
        .serverSideApply();

    assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations()
        .withName("wg-gitops").get().getWebhooks()).allSatisfy(w -> {
          assertThat(w.getClientConfig().getCaBundle()).isEqualTo(bundle);
          assertThat(w.getTimeoutSeconds()).as("the apply itself went through").isEqualTo(7);
        });
  }

  @Test
  void streamGatewayIsOffByDefault() throws Exception {
    assertThat(load(Helm.template(NAMESPACE))).extracting(o -> o.getMetadata().getName())
        .noneMatch(name -> name.contains("stream-gateway"));
  }

  @Test
  void streamGatewayOnOneServerWithTlsAndAPasswordStartsFromItsRenderedEnvironment(
      @TempDir Path dir) throws Exception {
    List<HasMetadata> objects = load(Helm.template(NAMESPACE, "--values",
        GATEWAY_STANDALONE.toAbsolutePath().toString()));
    String name = "warmgate-stream-gateway";

    PodSpec pod = gatewayPod(objects, name);
    assertHardenedAsTheOperator(pod);
    Container gateway = pod.getContainers().get(0);
    assertThat(gateway.getImage()).isEqualTo("warmgate/warmgate-stream-gateway:0.1.0");
    assertThat(env(gateway)).containsEntry(GatewayConfig.VALKEY_MODE, "standalone")
        .containsEntry(GatewayConfig.VALKEY_ADDRESSES, "valkey.caching.svc:6379")
        .containsEntry(GatewayConfig.VALKEY_TLS, "true")
        .containsEntry(GatewayConfig.VALKEY_TLS_VERIFY, "full")
        .containsEntry(GatewayConfig.VALKEY_TLS_CA_FILE, "/etc/warmgate/valkey-ca/ca.crt")
        .doesNotContainKeys(GatewayConfig.VALKEY_USERNAME, GatewayConfig.SCHEMA_DIR);
    assertThat(secretRef(gateway, GatewayConfig.VALKEY_PASSWORD))
        .extracting(SecretKeySelector::getName, SecretKeySelector::getKey)
        .containsExactly("valkey", "password");
    assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("valkey-ca"))
        .singleElement().satisfies(v -> {
          assertThat(v.getSecret().getSecretName()).isEqualTo("valkey-ca");
          assertThat(v.getSecret().getItems()).singleElement()
              .satisfies(i -> assertThat(i.getKey()).isEqualTo("ca.crt"));
        });
    assertOnlyVariablesTheGatewayReads(gateway);

    GatewayConfig config = GatewayConfig.from(GatewayEnvironment.of(pod, dir));
    ValkeyEndpoint valkey = config.valkeyEndpoint();
    assertThat(valkey.mode()).isEqualTo(ValkeyEndpoint.Mode.STANDALONE);
    assertThat(valkey.isTls()).isTrue();
    assertThat(valkey.nodes()).singleElement().satisfies(uri -> {
      assertThat(uri.getHost()).isEqualTo("valkey.caching.svc");
      assertThat(uri.getPort()).isEqualTo(6379);
      assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.FULL);
      assertThat(credentials(uri).getPassword()).isEqualTo("valkey/password".toCharArray());
    });
    assertThat(config.port()).isEqualTo(8080);
    assertThat(config.podName()).isEqualTo(GatewayEnvironment.POD_NAME);
    assertThat(config.upstreamUrl())
        .isEqualTo("http://llm.models.svc:8000/v1/templates/{template}/stream");

    assertThat(objects).filteredOn(o -> o.getMetadata().getName().equals(name))
        .extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ServiceAccount", "Service",
            "Deployment", "PodDisruptionBudget", "NetworkPolicy");
    assertThat(named(objects, ServiceAccount.class, name).getAutomountServiceAccountToken())
        .isFalse();
    assertThat(objects).as("subjects of every RoleBinding and ClusterRoleBinding")
        .flatExtracting(o -> o instanceof RoleBinding b ? b.getSubjects()
            : o instanceof ClusterRoleBinding b ? b.getSubjects() : List.of())
        .extracting(s -> ((Subject) s).getName())
        .doesNotContain(name);
    Service service = named(objects, Service.class, name);
    assertThat(pod.getContainers().get(0).getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(8080));
    assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
      assertThat(p.getPort()).isEqualTo(8080);
      assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
    });
    Map<String, String> podLabels = named(objects, Deployment.class, name).getSpec().getTemplate()
        .getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(named(objects, Deployment.class, "warmgate-operator").getSpec().getTemplate()
        .getMetadata().getLabels()).as("operator pods the gateway's Service would select")
        .doesNotContainEntry("app.kubernetes.io/name", "warmgate-stream-gateway");
    assertThat(named(objects, PodDisruptionBudget.class, name).getSpec().getSelector()
        .getMatchLabels()).isEqualTo(service.getSpec().getSelector());
    NetworkPolicy network = named(objects, NetworkPolicy.class, name);
    assertThat(network.getSpec().getPodSelector().getMatchLabels())
        .isEqualTo(service.getSpec().getSelector());
    assertThat(network.getSpec().getPolicyTypes()).contains("Ingress");
    assertThat(network.getSpec().getIngress()).as("ingress with no namespace named: none").isEmpty();
    assertThat(env(gateway)).containsEntry(GatewayConfig.AUTH, "token")
        .containsEntry(GatewayConfig.STREAM_TOKENS_FILE, "/etc/warmgate/stream-tokens/tokens")
        .doesNotContainKey(GatewayConfig.BURST_TOKENS_FILE);
    assertThat(config.authEnabled()).isTrue();
    assertThat(config.streamTokens()).isPresent();
    assertThat(config.burstTokens()).isEmpty();
  }

  @Test
  void streamGatewayOnAClusterWithEveryOptionStartsFromItsRenderedEnvironment(@TempDir Path dir)
      throws Exception {
    List<HasMetadata> objects = load(Helm.template(NAMESPACE, "--values",
        GATEWAY_CLUSTER.toAbsolutePath().toString()));
    String name = "wg-stream-gateway";

    PodSpec pod = gatewayPod(objects, name);
    assertHardenedAsTheOperator(pod);
    Container gateway = pod.getContainers().get(0);
    assertThat(gateway.getImage()).isEqualTo("warmgate/warmgate-stream-gateway@sha256:"
        + "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
    assertThat(pod.getImagePullSecrets()).extracting(r -> r.getName()).containsExactly("registry");
    assertThat(env(gateway)).containsEntry(GatewayConfig.VALKEY_MODE, "cluster")
        .containsEntry(GatewayConfig.VALKEY_ADDRESSES,
            "10.0.0.3:6379,10.0.0.4:6379,valkey-0.valkey.caching.svc:6379")
        .containsEntry(GatewayConfig.VALKEY_USERNAME, "gateway")
        .containsEntry(GatewayConfig.VALKEY_TLS_VERIFY, "ca")
        .containsEntry(GatewayConfig.UPSTREAM_HEADER_PREFIX + "X_TENANT", "ads")
        .containsEntry("WARMGATE_LOG_LEVEL", "DEBUG");
    assertThat(secretRef(gateway, GatewayConfig.VALKEY_PASSWORD))
        .extracting(SecretKeySelector::getName, SecretKeySelector::getKey)
        .containsExactly("valkey-acl", "gateway-password");
    assertThat(secretRef(gateway, GatewayConfig.UPSTREAM_HEADER_PREFIX + "AUTHORIZATION"))
        .extracting(SecretKeySelector::getName, SecretKeySelector::getKey)
        .containsExactly("llm-token", "authorization");
    assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("valkey-ca"))
        .singleElement().satisfies(v -> assertThat(v.getSecret().getItems()).singleElement()
            .satisfies(i -> assertThat(i.getKey()).isEqualTo("server-ca.pem")));
    assertOnlyVariablesTheGatewayReads(gateway);
    // Every setting of GatewayConfig has a value, except the CA as PEM text (the chart mounts
    // the CA as a file, which the gateway re-reads when it rotates) and replica reads (refused).
    Set<String> rendered = gateway.getEnv().stream().map(EnvVar::getName)
        .collect(Collectors.toSet());
    assertThat(GatewayEnvironment.configVariables())
        .as("GatewayConfig variables the chart leaves unset").filteredOn(v -> !rendered.contains(v))
        .containsExactlyInAnyOrder(GatewayConfig.VALKEY_TLS_CA, GatewayConfig.VALKEY_READ_FROM,
            GatewayConfig.STREAM_TOKENS, GatewayConfig.BURST_TOKENS);

    GatewayConfig config = GatewayConfig.from(GatewayEnvironment.of(pod, dir));
    ValkeyEndpoint valkey = config.valkeyEndpoint();
    assertThat(valkey.mode()).isEqualTo(ValkeyEndpoint.Mode.CLUSTER);
    assertThat(valkey.readFrom()).isEqualTo(ValkeyEndpoint.ReadFrom.PRIMARY);
    assertThat(valkey.nodes()).extracting(RedisURI::getHost)
        .containsExactly("10.0.0.3", "10.0.0.4", "valkey-0.valkey.caching.svc");
    assertThat(valkey.nodes()).allSatisfy(uri -> {
      assertThat(uri.isSsl()).isTrue();
      assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
      assertThat(credentials(uri).getUsername()).isEqualTo("gateway");
      assertThat(credentials(uri).getPassword())
          .isEqualTo("valkey-acl/gateway-password".toCharArray());
    });
    assertThat(config.upstreamHeaders()).containsEntry("Authorization", "llm-token/authorization")
        .containsEntry("X-Tenant", "ads");
    assertThat(config.port()).isEqualTo(9090);
    assertThat(config.upstreamConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.upstreamIdleTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.upstreamTimeout()).isEqualTo(Duration.ofMinutes(3));
    assertThat(config.resultTtl()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.burstResultTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.burstFlagTtl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.streamCap()).isEqualTo(2_000_000);
    assertThat(config.lockTtl()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.schemaDir()).isPresent();
    assertThat(config.streamTokens()).isPresent();
    assertThat(config.burstTokens()).isPresent();
    assertThat(config.burstFlagMaxTtl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.maxKeys()).isEqualTo(64);
    assertThat(config.slowClientTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.clientIdleTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(config.clientSendBuffer()).isEqualTo(128 * 1024);
    assertThat(config.upstreamMaxEventBytes()).isEqualTo(256 * 1024);

    assertThat(objects).filteredOn(o -> o.getMetadata().getName().equals(name))
        .extracting(HasMetadata::getKind).containsExactlyInAnyOrder("ServiceAccount", "Service",
            "Deployment", "PodDisruptionBudget", "NetworkPolicy", "ServiceMonitor");
    Service service = named(objects, Service.class, name);
    assertThat(service.getSpec().getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getPort()).isEqualTo(80));
    assertThat(gateway.getPorts()).singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9090));
    GenericKubernetesResource monitor = objects.stream()
        .filter(o -> o.getKind().equals("ServiceMonitor") && o.getMetadata().getName().equals(name))
        .map(GenericKubernetesResource.class::cast).findFirst().orElseThrow();
    Map<String, Object> selected = monitor.get("spec", "selector", "matchLabels");
    assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(
        selected.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
            e -> String.valueOf(e.getValue()))));
    List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
    assertThat(endpoints).singleElement().satisfies(e -> assertThat(e)
        .containsEntry("port", "http").containsEntry("path", "/metrics"));
    NetworkPolicy network = named(objects, NetworkPolicy.class, name);
    assertThat(network.getSpec().getIngress().get(0).getFrom()).hasSize(3);
    assertThat(network.getSpec().getIngress().get(0).getFrom().get(0).getNamespaceSelector()
        .getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "checkout");
    assertThat(network.getSpec().getEgress().get(0).getPorts()).extracting(p -> p.getPort()
        .getIntVal()).containsExactly(6379, 443, 53);
  }

  @Test
  void streamGatewaySettingsTheGatewayWouldRefuseFailRenderingNamingTheValueAndTheFix()
      throws Exception {
    String on = "streamGateway.enabled=true";
    String url = "streamGateway.upstream.url=http://llm:8000/stream";
    String address = "streamGateway.valkey.addresses={valkey:6379}";
    String tokens = "streamGateway.auth.streamTokensSecretRef.name=gateway-tokens";
    Map<List<String>, String> cases = Map.of(
        List.of(on, url, address),
        "streamGateway.auth.mode=Token needs streamGateway.auth.streamTokensSecretRef",
        List.of(on, url, address, tokens, "streamGateway.auth.mode=None"),
        "streamGateway.auth.mode=None admits every client, but a tokens Secret is set",
        List.of(on, url),
        "streamGateway.enabled=true needs streamGateway.valkey.addresses",
        List.of(on, address),
        "streamGateway.enabled=true needs streamGateway.upstream.url",
        List.of(on, url, "streamGateway.valkey.addresses={a:6379,b:6379}"),
        "lists several addresses but streamGateway.valkey.mode is Standalone: set "
            + "streamGateway.valkey.mode=Cluster",
        List.of(on, url, address, "streamGateway.valkey.mode=cluster"),
        "streamGateway.valkey.mode=\"cluster\" must be Standalone or Cluster",
        List.of(on, url, address, "streamGateway.valkey.username=gateway"),
        "streamGateway.valkey.username requires streamGateway.valkey.passwordSecretKeyRef",
        List.of(on, url, address, "streamGateway.valkey.tlsCaSecretRef.name=valkey-ca"),
        "streamGateway.valkey.tlsCaSecretRef needs streamGateway.valkey.tls=true",
        List.of(on, url, address, "streamGateway.valkey.tlsVerify=CA"),
        "streamGateway.valkey.tlsVerify=CA applies to TLS connections");
    for (Map.Entry<List<String>, String> c : cases.entrySet()) {
      List<String> command = new ArrayList<>(List.of("template", "warmgate",
          Helm.chart().toString(), "--kube-version", Helm.KUBE_VERSION));
      c.getKey().forEach(set -> command.addAll(List.of("--set", set)));
      Helm.Result result = Helm.run(command.toArray(String[]::new));
      assertThat(result.exitCode()).as("helm exit code with %s", c.getKey()).isNotZero();
      assertThat(result.stderr()).as("helm's error with %s", c.getKey()).contains(c.getValue());
    }
  }

  /** The default, the non-default and both stream gateway renderings. */
  private static List<String> renderings() throws Exception {
    List<String> renderings = new ArrayList<>(List.of(Helm.template(NAMESPACE)));
    for (Path values : VALUE_FILES) {
      renderings.add(Helm.template(NAMESPACE, "--values", values.toAbsolutePath().toString()));
    }
    return renderings;
  }

  private static PodSpec gatewayPod(List<HasMetadata> objects, String name) {
    return named(objects, Deployment.class, name).getSpec().getTemplate().getSpec();
  }

  /** The security context, resources and probes the operator has, and no API token. */
  private static void assertHardenedAsTheOperator(PodSpec pod) {
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getAffinity().getPodAntiAffinity()
        .getPreferredDuringSchedulingIgnoredDuringExecution()).isNotEmpty();
    Container gateway = pod.getContainers().get(0);
    assertThat(gateway.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(gateway.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(gateway.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(gateway.getResources().getRequests())
        .containsKeys("cpu", "memory", "ephemeral-storage");
    assertThat(gateway.getResources().getLimits()).containsKeys("memory", "ephemeral-storage")
        .doesNotContainKey("cpu");
    assertThat(gateway.getImagePullPolicy()).isEqualTo("IfNotPresent");
    assertThat(gateway.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(gateway.getLivenessProbe().getTcpSocket().getPort().getStrVal()).isEqualTo("http");
    assertThat(gateway.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath())
        .isEqualTo("/tmp"));
  }

  /**
   * Every variable rendered is one GatewayConfig reads (its constants or its header prefix),
   * WARMGATE_LOG_LEVEL that the gateway's logback configuration reads, or JAVA_TOOL_OPTIONS.
   */
  private static void assertOnlyVariablesTheGatewayReads(Container gateway) throws Exception {
    assertThat(GatewayEnvironment.logbackConfiguration()).contains("${WARMGATE_LOG_LEVEL");
    Set<String> read = GatewayEnvironment.configVariables();
    assertThat(gateway.getEnv()).extracting(EnvVar::getName).as("variables of the gateway's "
        + "container; each must be one GatewayConfig reads").allMatch(n -> read.contains(n)
            || n.startsWith(GatewayConfig.UPSTREAM_HEADER_PREFIX)
            || n.equals("WARMGATE_LOG_LEVEL") || n.equals("JAVA_TOOL_OPTIONS"))
        .doesNotHaveDuplicates();
  }

  private static RedisCredentials credentials(RedisURI uri) {
    return uri.getCredentialsProvider().resolveCredentials().block(Duration.ofSeconds(5));
  }

  private static SecretKeySelector secretRef(Container container, String variable) {
    return container.getEnv().stream().filter(e -> e.getName().equals(variable)).findFirst()
        .orElseThrow(() -> new AssertionError(variable + " is not set"))
        .getValueFrom().getSecretKeyRef();
  }

  static <T extends HasMetadata> T named(List<HasMetadata> objects, Class<T> type, String name) {
    List<T> found = objects.stream().filter(type::isInstance).map(type::cast)
        .filter(o -> o.getMetadata().getName().equals(name)).toList();
    assertThat(found).as("rendered %s %s", type.getSimpleName(), name).hasSize(1);
    return found.get(0);
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

  /**
   * Sets every webhook's caBundle of {@code configuration} as the operator does (a client-side
   * edit, sent as a JSON patch by fabric8's field manager), and returns it.
   */
  private static String caBundleAsTheOperatorWritesIt(String configuration) {
    String bundle = Base64.getEncoder().encodeToString(
        "-----BEGIN CERTIFICATE-----\nissued by the operator\n".getBytes(StandardCharsets.UTF_8));
    client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(configuration)
        .edit(c -> {
          c.getWebhooks().forEach(w -> w.getClientConfig().setCaBundle(bundle));
          return c;
        });
    return bundle;
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
