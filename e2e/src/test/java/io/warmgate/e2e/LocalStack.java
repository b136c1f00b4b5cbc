package io.warmgate.e2e;

import com.google.cloud.spanner.DatabaseClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.readiness.Readiness;
import io.warmgate.localpods.LocalPodRunner;
import io.warmgate.testing.ChartServiceAccount;
import io.warmgate.testing.EmulatorDatabase;
import io.warmgate.testing.KwokClusterExtension;
import io.warmgate.testing.OperatorProcess;
import io.warmgate.testing.RedisClusterExtension;
import io.warmgate.testing.RedisExtension;
import io.warmgate.testing.ServiceExtension;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The default stack: Redis (one server, or a cluster of three primaries and three replicas) and
 * the Spanner emulator as local processes (the test-support extensions, one per test class), the
 * operator as its own process with its webhook registered by URL, and the pods kwok schedules run
 * as local deal-service processes. The operator acts as the chart's ServiceAccount with the chart's
 * RBAC, so a permission the chart lacks fails a scenario here, not a user's first release.
 */
final class LocalStack implements Stack {

  private final RedisExtension redis;
  private final RedisClusterExtension redisCluster;
  private final ServiceExtension valkey;
  private final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();
  private OperatorProcess operator;
  private ChartServiceAccount identity;
  /** The operator's kubeconfig and log: one directory per cluster, as E2E classes may run at once. */
  private Path work = RolloutGateE2E.WORK;
  private final List<String> refused = new ArrayList<>();

  /** @param cluster whether L2 is a Redis cluster rather than one server */
  LocalStack(boolean cluster) {
    redis = cluster ? null : new RedisExtension();
    redisCluster = cluster ? new RedisClusterExtension() : null;
    valkey = cluster ? redisCluster : redis;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    valkey.beforeAll(context);
    spanner.beforeAll(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    valkey.beforeEach(context);
    spanner.beforeEach(context);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      assertNothingRefused();
    } finally {
      refused.clear();
      spanner.afterEach(context);
      valkey.afterEach(context);
    }
  }

  @Override
  public void assertNothingRefused() {
    if (operator == null) {
      return;
    }
    operator.refusals().stream().filter(r -> !refused.contains(r)).forEach(refused::add);
    if (!refused.isEmpty()) {
      throw new AssertionError("the API server refused the operator, acting as "
          + identity.username() + " with the RBAC of charts/warmgate: " + String.join("; ", refused)
          + ". Grant it in charts/warmgate/templates and operator/k8s/rbac.yaml (see "
          + work.resolve("operator.log") + ")");
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      if (operator != null) {
        operator.close();
      }
    } finally {
      spanner.afterAll(context);
      valkey.afterAll(context);
    }
  }

  @Override
  public void install(KwokClusterExtension cluster) throws Exception {
    KubernetesClient client = cluster.client();
    try (Stream<Path> crds = Files.list(Repo.dir().resolve("crds"))) {
      for (Path crd : crds.toList()) {
        client.load(Files.newInputStream(crd)).serverSideApply();
      }
    }
    work = Files.createDirectories(RolloutGateE2E.WORK.resolve("operator-" + cluster.clusterName()));
    // The namespace the chart's README installs into; its Roles (Lease, webhook Secret) live there.
    identity = ChartServiceAccount.install(client, "warmgate-system", work);
    // Leader election on, as the chart runs it; a fixed identity lets a restarted operator take
    // its Lease back at once instead of waiting for it to expire.
    operator = new OperatorProcess(identity.kubeconfig(), work)
        .inNamespace(identity.namespace())
        .withEnv("WARMGATE_LEADER_ELECTION", "true")
        .withEnv("POD_NAME", "warmgate-operator-e2e")
        .withWebhook();
    String webhook = Repo.manifest("examples/local/webhook.yaml")
        .replace("127.0.0.1:18443", "127.0.0.1:" + operator.webhookPort());
    client.load(new ByteArrayInputStream(webhook.getBytes(StandardCharsets.UTF_8))).serverSideApply();
    operator.start();
  }

  @Override
  public String valkeyAddress() {
    return redis != null ? redis.host() + ":" + redis.port() : redisCluster.addresses().get(0);
  }

  @Override
  public String valkeyUri() {
    return "redis://" + valkeyAddress();
  }

  @Override
  public boolean valkeyCluster() {
    return redisCluster != null;
  }

  @Override
  public List<String> valkeyAddresses() {
    // Three seeds, as a user lists a few nodes (or a discovery endpoint) rather than all.
    return redis != null ? List.of(valkeyAddress()) : redisCluster.addresses().subList(0, 3);
  }

  @Override
  public Map<String, String> spannerEnv() {
    return Map.of("SPANNER_EMULATOR_HOST", spanner.emulatorHost(),
        "SPANNER_PROJECT", spanner.projectId(),
        "SPANNER_INSTANCE", spanner.instanceId(),
        "SPANNER_DATABASE", spanner.databaseId());
  }

  @Override
  public DatabaseClient databaseClient() {
    return spanner.databaseClient();
  }

  @Override
  public void applyDdl(String statement) throws Exception {
    EmulatorDatabase.applyDdl(spanner.spanner(), spanner.instanceId(), spanner.databaseId(),
        statement);
  }

  @Override
  public void stopSpanner() {
    spanner.stop();
  }

  @Override
  public void startSpanner() {
    spanner.start();
  }

  @Override
  public void freezeSpanner() {
    spanner.freeze();
  }

  @Override
  public void thawSpanner() {
    spanner.thaw();
  }

  @Override
  public void stopValkey() {
    if (redis != null) {
      redis.stop();
    } else {
      redisCluster.stop();
    }
  }

  @Override
  public void startValkey() {
    if (redis != null) {
      redis.start();
    } else {
      redisCluster.start();
    }
  }

  @Override
  public void startOperator() {
    operator.start();
  }

  @Override
  public void killOperator() throws InterruptedException {
    operator.kill();
  }

  @Override
  public String operatorMetricsAddress() {
    return "127.0.0.1:" + operator.httpPort();
  }

  @Override
  public void adaptAppContainer(Map<String, Object> container) {
    // kwok runs no containers: local-pods starts the app with the pod's environment.
  }

  @Override
  public AppPods appPods(KubernetesClient client, String namespace, String name, Path workdir) {
    String app = Repo.moduleClasspath("examples/deal-service");
    LocalPodRunner pods = new LocalPodRunner(client, namespace, "app=" + name, "app",
        Stream.of(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()),
            APP_JVM_OPTIONS, List.of("-cp", app, "io.warmgate.example.deals.DealService"))
            .flatMap(List::stream).toList(),
        workdir.resolve(name)).start();
    return new AppPods() {
      @Override
      public List<Integer> ports() {
        Set<String> ready = client.pods().inNamespace(namespace).withLabel("app", name).list()
            .getItems().stream().filter(Readiness::isPodReady).map(p -> p.getMetadata().getName())
            .collect(Collectors.toSet());
        return new ArrayList<>(pods.pods().values().stream().filter(LocalPodRunner.LocalPod::serving)
            .filter(p -> ready.contains(p.podName())).map(LocalPodRunner.LocalPod::port).toList());
      }

      @Override
      public List<String> templateHashes() {
        return pods.pods().values().stream().map(LocalPodRunner.LocalPod::templateHash).toList();
      }

      @Override
      public void close() {
        pods.close();
      }
    };
  }
}
