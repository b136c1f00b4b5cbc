package io.warmgate.operator.testing;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real kube-apiserver and etcd, run by fabric8 kube-api-test in offline mode from the binaries
 * {@code hack/prereqs.sh} put under {@code <warmgate.cache.dir>/kube-api-test}. The client is
 * cluster-admin. Use as {@code @RegisterExtension static final ApiServer api = new ApiServer();}.
 */
public final class ApiServer implements BeforeAllCallback, AfterAllCallback {

  public static final String KUBERNETES_VERSION =
      System.getProperty("warmgate.kubernetes.version", "1.34.4");

  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  private KubeAPIServer server;
  private KubernetesClient client;
  private String kubeconfig;

  @Override
  public void beforeAll(ExtensionContext context) {
    Path dir = cacheDir().resolve("kube-api-test");
    Path binaries = dir.resolve("k8s").resolve(KUBERNETES_VERSION + "-linux-amd64");
    if (!Files.isExecutable(binaries.resolve("kube-apiserver"))) {
      throw new IllegalStateException("No kube-apiserver under " + binaries
          + "; build it with hack/prereqs.sh (or point -Dwarmgate.cache.dir at its cache)");
    }
    server = start(dir);
    kubeconfig = server.getKubeConfigYaml();
    client = clientFor(Config.fromKubeconfig(kubeconfig));
  }

  /**
   * Starts etcd and kube-apiserver, a second time on other ports when the first start fails:
   * kube-api-test picks each port free, then starts the process, and a test fork starting its
   * own processes meanwhile can take the port first (etcd then exits at once).
   */
  private static KubeAPIServer start(Path dir) {
    for (int attempt = 1; ; attempt++) {
      KubeAPIServer candidate = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
          .withOfflineMode(true)
          .withTestDir(dir.toString())
          .withApiServerVersion(KUBERNETES_VERSION)
          .withUpdateKubeConfig(false)
          .withStartupTimeout(attempt == 1 ? 60_000 : 120_000)
          .build());
      try {
        candidate.start();
        return candidate;
      } catch (RuntimeException e) {
        try {
          candidate.stop();
        } catch (RuntimeException stopFailure) {
          e.addSuppressed(stopFailure);
        }
        if (attempt == 2) {
          throw e;
        }
        LOG.warn("kube-apiserver and etcd did not start ({}); starting them again on other ports",
            e.toString());
      }
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.stop();
    }
  }

  /** A cluster-admin client. */
  public KubernetesClient client() {
    return client;
  }

  /** The cluster-admin kubeconfig, for kubectl. */
  public String kubeconfig() {
    return kubeconfig;
  }

  /** A client acting as {@code namespace}'s service account {@code name}, through impersonation. */
  public KubernetesClient clientAs(String namespace, String name) {
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setImpersonateUsername("system:serviceaccount:" + namespace + ":" + name);
    config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + namespace,
        "system:authenticated");
    return clientFor(config);
  }

  /**
   * Why the API server refuses a CachePolicy {@code name} with {@code spec} in {@code namespace}
   * (its 422 message), or null when a dry-run create admits it: the CRD's schema and CEL rules
   * applied to one value, for tests that hold them against the Java checks.
   */
  public String refusal(String namespace, String name, CachePolicySpec spec) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName(name);
    policy.getMetadata().setNamespace(namespace);
    policy.setSpec(spec);
    try {
      client.resources(CachePolicy.class).inNamespace(namespace).resource(policy).dryRun().create();
      return null;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 422) {
        throw e;
      }
      return e.getMessage();
    }
  }

  /** Creates a fresh namespace named after {@code prefix}. */
  public String newNamespace(String prefix) {
    String name = (prefix + "-" + UUID.randomUUID().toString().substring(0, 8))
        .toLowerCase(Locale.ROOT);
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name)
        .endMetadata().build()).create();
    return name;
  }

  /** Applies a CRD file and waits until the API server serves it. */
  public void applyCrd(Path file) {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(file)) {
      crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD " + file, e);
    }
    client.resource(crd).serverSideApply();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      CustomResourceDefinition current = client.apiextensions().v1().customResourceDefinitions()
          .withName(crd.getMetadata().getName()).get();
      return current != null && current.getStatus() != null
          && current.getStatus().getConditions() != null
          && current.getStatus().getConditions().stream().anyMatch(
              c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    });
    // Established is not yet served by discovery, which the operator reads at start to learn
    // whether Rollouts exist; on a loaded machine the two can be seconds apart.
    String group = crd.getSpec().getGroup();
    String kind = crd.getSpec().getNames().getKind();
    for (var version : crd.getSpec().getVersions()) {
      await().atMost(Duration.ofSeconds(30))
          .until(() -> client.supports(group + "/" + version.getName(), kind));
    }
  }

  /** The warmgate cache dir: {@code -Dwarmgate.cache.dir}, else ~/.cache/warmgate. */
  public static Path cacheDir() {
    String dir = System.getProperty("warmgate.cache.dir", System.getenv("WARMGATE_CACHE_DIR"));
    return dir != null ? Path.of(dir)
        : Path.of(System.getProperty("user.home"), ".cache", "warmgate");
  }

  /** The repository root: {@code -Dwarmgate.repo.dir}, else the operator module's parent. */
  public static Path repoDir() {
    String dir = System.getProperty("warmgate.repo.dir");
    return dir != null ? Path.of(dir) : Path.of("..").toAbsolutePath().normalize();
  }

  /** The checked-in CachePolicy CRD. */
  public static Path cachePolicyCrd() {
    return repoDir().resolve("crds/cachepolicies.warmgate.io-v1.yml");
  }

  /** The Argo Rollouts Rollout CRD that hack/prereqs.sh fetched with its controller. */
  public static Path rolloutCrd() {
    return cacheDir().resolve("bin/argo-rollouts-v" + System.getProperty(
        "warmgate.argo-rollouts.version", "1.9.2") + "/crds/rollout-crd.yaml");
  }

  private static KubernetesClient clientFor(Config config) {
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
