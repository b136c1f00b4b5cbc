package io.warmgate.testing;

import io.fabric8.kubernetes.api.model.ConfigBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * The operator's identity as the chart installs it: the ServiceAccount and RBAC objects that
 * {@code helm template} renders for a namespace, applied to a cluster, and a kubeconfig that
 * authenticates as that ServiceAccount with a token the API server issued for it (what a pod's
 * mounted token does). A process using {@link #kubeconfig()} has exactly the chart's permissions.
 */
public final class ChartServiceAccount {

  private static final Set<String> IDENTITY_KINDS =
      Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
  // Long enough for the whole E2E suite; the token is never refreshed.
  private static final long TOKEN_SECONDS = 12 * 3600;

  private final String namespace;
  private final String name;
  private final Path kubeconfig;

  private ChartServiceAccount(String namespace, String name, Path kubeconfig) {
    this.namespace = namespace;
    this.name = name;
    this.kubeconfig = kubeconfig;
  }

  /**
   * Renders the chart with default values for release namespace {@code namespace}, applies its
   * ServiceAccount, ClusterRoles, Roles and bindings with {@code admin} (creating the namespace),
   * and writes {@code <dir>/kubeconfig-<serviceaccount>.yaml} holding a token of that
   * ServiceAccount.
   *
   * @throws IllegalStateException if helm fails, the chart renders no single ServiceAccount, the
   *     token does not authenticate as it, or the API server does not enforce RBAC (then nothing
   *     a test observes under this identity would say anything about the chart's permissions)
   */
  public static ChartServiceAccount install(KubernetesClient admin, String namespace, Path dir) {
    List<HasMetadata> identity = admin.load(new ByteArrayInputStream(
            Helm.template(namespace).getBytes(StandardCharsets.UTF_8))).items().stream()
        .filter(o -> IDENTITY_KINDS.contains(o.getKind())).toList();
    List<ServiceAccount> accounts = identity.stream().filter(ServiceAccount.class::isInstance)
        .map(ServiceAccount.class::cast).toList();
    if (accounts.size() != 1) {
      throw new IllegalStateException("helm template " + Helm.chart() + " rendered "
          + accounts.size() + " ServiceAccounts; expected the operator's one");
    }
    String name = accounts.get(0).getMetadata().getName();
    admin.resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata()
        .build()).serverSideApply();
    for (HasMetadata object : identity) {
      admin.resource(object).fieldManager("warmgate-e2e").forceConflicts().serverSideApply();
    }
    String token = admin.serviceAccounts().inNamespace(namespace).withName(name)
        .tokenRequest(new TokenRequestBuilder().withNewSpec()
            .withExpirationSeconds(TOKEN_SECONDS).endSpec().build())
        .getStatus().getToken();
    String yaml = kubeconfigYaml(admin, name, token);
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve("kubeconfig-" + name + ".yaml");
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
      ChartServiceAccount account = new ChartServiceAccount(namespace, name, file);
      account.verify(yaml);
      return account;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the kubeconfig of " + name + " under " + dir, e);
    }
  }

  /** The ServiceAccount's namespace: the chart's release namespace. */
  public String namespace() {
    return namespace;
  }

  /** The ServiceAccount's name. */
  public String name() {
    return name;
  }

  /** {@code system:serviceaccount:<namespace>:<name>}, the user the API server sees. */
  public String username() {
    return "system:serviceaccount:" + namespace + ":" + name;
  }

  /** A kubeconfig that authenticates as the ServiceAccount, for the operator process. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  private static String kubeconfigYaml(KubernetesClient admin, String name, String token) {
    Config server = admin.getConfiguration();
    String ca = server.getCaCertData();
    if (ca == null && server.getCaCertFile() != null) {
      try {
        ca = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(server.getCaCertFile())));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the cluster's CA " + server.getCaCertFile(), e);
      }
    }
    return admin.getKubernetesSerialization().asYaml(new ConfigBuilder()
        .withApiVersion("v1").withKind("Config")
        .addNewCluster().withName("cluster").withNewCluster()
        .withServer(server.getMasterUrl())
        .withCertificateAuthorityData(ca)
        .withInsecureSkipTlsVerify(ca == null && server.isTrustCerts() ? Boolean.TRUE : null)
        .endCluster().endCluster()
        .addNewUser().withName(name).withNewUser().withToken(token).endUser().endUser()
        .addNewContext().withName(name).withNewContext().withCluster("cluster").withUser(name)
        .endContext().endContext()
        .withCurrentContext(name)
        .build());
  }

  /** Checks that the token authenticates as the ServiceAccount and that RBAC limits it. */
  private void verify(String yaml) {
    try (KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(yaml)).build()) {
      SelfSubjectReview review = client.authentication().v1().selfSubjectReviews()
          .create(new SelfSubjectReview());
      String user = review.getStatus().getUserInfo().getUsername();
      if (!username().equals(user)) {
        throw new IllegalStateException(kubeconfig + " authenticates as " + user + ", not as "
            + username());
      }
      // The chart grants no deletion of namespaces; an API server that allows it authorizes
      // everyone (e.g. --authorization-mode=AlwaysAllow).
      SelfSubjectAccessReview access = client.authorization().v1().selfSubjectAccessReview()
          .create(new SelfSubjectAccessReviewBuilder().withNewSpec()
              .withNewResourceAttributes().withVerb("delete").withResource("namespaces")
              .endResourceAttributes().endSpec().build());
      if (Boolean.TRUE.equals(access.getStatus().getAllowed())) {
        throw new IllegalStateException("the API server at " + client.getMasterUrl()
            + " lets " + user + " delete namespaces, which the chart never grants: it does not "
            + "enforce RBAC (start kube-apiserver with --authorization-mode=Node,RBAC)");
      }
    }
  }
}
