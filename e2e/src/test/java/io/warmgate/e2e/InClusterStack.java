package io.warmgate.e2e;

import static org.awaitility.Awaitility.await;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.LocalPortForward;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.dsl.RollableScalableResource;
import io.fabric8.kubernetes.client.readiness.Readiness;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.warmgate.testing.EmulatorDatabase;
import io.warmgate.testing.KwokClusterExtension;
import io.warmgate.testing.SpannerEmulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The stack of {@code hack/kind-e2e.sh}: the operator is the chart's Deployment, the pods are real
 * pods of the deal-service image, Valkey and the Spanner emulator run as Deployments in namespace
 * {@value #SERVICES_NAMESPACE}. The test reaches Valkey, Spanner and each pod through port-forwards.
 * Killing the operator or Spanner scales its Deployment to zero and force-deletes its pods; freezing
 * Spanner stops its process with SIGSTOP.
 */
final class InClusterStack implements Stack {

  static final String SERVICES_NAMESPACE = "warmgate-e2e";
  static final String OPERATOR_NAMESPACE = "warmgate-system";
  static final String OPERATOR_DEPLOYMENT = "warmgate-operator";
  private static final String VALKEY = "valkey";
  private static final int VALKEY_PORT = 6379;
  private static final String SPANNER = "spanner-emulator";
  private static final int SPANNER_PORT = 9010;
  private static final String SPANNER_CONTAINER = "emulator";
  private static final String EMULATOR_PROCESS = "emulator_main";
  private static final int APP_PORT = 8080;
  private static final String APP_IMAGE =
      Objects.requireNonNullElse(System.getenv("WARMGATE_E2E_APP_IMAGE"), "warmgate/deal-service:dev");
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  private KubernetesClient client;
  private LocalPortForward valkeyForward;
  private LocalPortForward spannerForward;
  private Spanner spanner;

  @Override
  public void beforeAll(ExtensionContext context) {}

  @Override
  public void beforeEach(ExtensionContext context) {}

  @Override
  public void afterEach(ExtensionContext context) {}

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    closeSpanner();
    if (valkeyForward != null) {
      valkeyForward.close();
    }
  }

  /** The chart installed the CRD, the webhook and the operator; this waits for them and connects. */
  @Override
  public void install(KwokClusterExtension cluster) throws Exception {
    client = cluster.client();
    awaitReady(OPERATOR_NAMESPACE, OPERATOR_DEPLOYMENT);
    awaitReady(SERVICES_NAMESPACE, VALKEY);
    valkeyForward = client.services().inNamespace(SERVICES_NAMESPACE).withName(VALKEY).portForward(VALKEY_PORT);
    // As empty as the Redis the local stack starts: a reused cluster keeps the last run's keys.
    RedisClient redis = RedisClient.create(valkeyUri());
    try (StatefulRedisConnection<String, String> connection = redis.connect()) {
      connection.sync().flushall();
    } finally {
      redis.shutdown();
    }
    startSpanner();
  }

  @Override
  public String valkeyAddress() {
    return VALKEY + "." + SERVICES_NAMESPACE + ".svc.cluster.local:" + VALKEY_PORT;
  }

  @Override
  public String valkeyUri() {
    return "redis://127.0.0.1:" + valkeyForward.getLocalPort();
  }

  @Override
  public Map<String, String> spannerEnv() {
    return Map.of("SPANNER_EMULATOR_HOST", SPANNER + "." + SERVICES_NAMESPACE + ".svc.cluster.local:" + SPANNER_PORT,
        "SPANNER_PROJECT", SpannerEmulator.PROJECT_ID,
        "SPANNER_INSTANCE", SpannerEmulator.INSTANCE_ID,
        "SPANNER_DATABASE", SpannerEmulator.DEFAULT_DATABASE_ID);
  }

  @Override
  public DatabaseClient databaseClient() {
    return spanner.getDatabaseClient(DatabaseId.of(SpannerEmulator.PROJECT_ID, SpannerEmulator.INSTANCE_ID,
        SpannerEmulator.DEFAULT_DATABASE_ID));
  }

  @Override
  public void applyDdl(String statement) throws Exception {
    EmulatorDatabase.applyDdl(spanner, SpannerEmulator.INSTANCE_ID,
        SpannerEmulator.DEFAULT_DATABASE_ID, statement);
  }

  @Override
  public void stopSpanner() {
    closeSpanner();
    kill(deployment(SPANNER));
  }

  /** Scales the emulator up, connects through a new port-forward, creates instance and database. */
  @Override
  public void startSpanner() throws Exception {
    deployment(SPANNER).scale(1);
    awaitReady(SERVICES_NAMESPACE, SPANNER);
    closeSpanner();
    spannerForward = client.services().inNamespace(SERVICES_NAMESPACE).withName(SPANNER).portForward(SPANNER_PORT);
    spanner = SpannerOptions.newBuilder().setProjectId(SpannerEmulator.PROJECT_ID)
        .setEmulatorHost("127.0.0.1:" + spannerForward.getLocalPort())
        .setCredentials(NoCredentials.getInstance()).build().getService();
    EmulatorDatabase.createIfMissing(spanner, SpannerEmulator.PROJECT_ID, SpannerEmulator.INSTANCE_ID,
        SpannerEmulator.DEFAULT_DATABASE_ID);
  }

  private void closeSpanner() {
    if (spanner != null) {
      spanner.close();
      spanner = null;
    }
    if (spannerForward != null) {
      try {
        spannerForward.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      spannerForward = null;
    }
  }

  /**
   * Stops the emulator with SIGSTOP sent through {@code kubectl exec}: its pod shares its process
   * namespace ({@code hack/kind-e2e.sh}), so the emulator is not PID 1 there and takes the signal,
   * and it keeps its in-memory rows. Its socket still accepts connections, which then hang.
   */
  @Override
  public void freezeSpanner() {
    signalSpanner("STOP");
  }

  @Override
  public void thawSpanner() {
    signalSpanner("CONT");
  }

  private void signalSpanner(String signal) {
    String pod = client.pods().inNamespace(SERVICES_NAMESPACE).withLabel("app", SPANNER).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && Readiness.isPodReady(p))
        .map(p -> p.getMetadata().getName()).findFirst()
        .orElseThrow(() -> new IllegalStateException("no ready pod of Deployment " + SERVICES_NAMESPACE + "/" + SPANNER
            + " to send SIG" + signal + " to"));
    // The image has a shell but no procps: find the process by its name under /proc.
    String script = "found=0; for d in /proc/[0-9]*; do"
        + " if [ \"$(cat $d/comm 2>/dev/null)\" = " + EMULATOR_PROCESS + " ]; then kill -" + signal + " ${d#/proc/} && found=1; fi;"
        + " done; [ $found = 1 ] || { echo 'no " + EMULATOR_PROCESS + " process in the pod' >&2; exit 1; }";
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    try (ExecWatch exec = client.pods().inNamespace(SERVICES_NAMESPACE).withName(pod).inContainer(SPANNER_CONTAINER)
        .writingError(stderr).exec("sh", "-c", script)) {
      int exit = exec.exitCode().get(1, TimeUnit.MINUTES);
      if (exit != 0) {
        throw new IllegalStateException("SIG" + signal + " to the emulator in pod " + SERVICES_NAMESPACE + "/" + pod
            + " failed (exit " + exit + "): " + stderr.toString(StandardCharsets.UTF_8).strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal + " to the emulator", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("SIG" + signal + " to the emulator in pod " + SERVICES_NAMESPACE + "/" + pod
          + " did not complete", e);
    }
  }

  /** Scales Valkey to zero and force-deletes its pod; the port-forward goes with it. */
  @Override
  public void stopValkey() {
    kill(deployment(VALKEY));
  }

  /**
   * Scales Valkey back up and forwards the same local port to it again, so {@link #valkeyUri()}
   * stays valid and clients reconnect by themselves.
   */
  @Override
  public void startValkey() {
    int localPort = valkeyForward.getLocalPort();
    try {
      valkeyForward.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    deployment(VALKEY).scale(1);
    awaitReady(SERVICES_NAMESPACE, VALKEY);
    valkeyForward = client.services().inNamespace(SERVICES_NAMESPACE).withName(VALKEY)
        .portForward(VALKEY_PORT, localPort);
  }

  @Override
  public void startOperator() {
    operator().scale(1);
    awaitReady(OPERATOR_NAMESPACE, OPERATOR_DEPLOYMENT);
  }

  @Override
  public void killOperator() {
    kill(operator());
  }

  @Override
  public void adaptAppContainer(Map<String, Object> container) {
    container.put("image", APP_IMAGE);
    // hack/kind-e2e.sh loaded the image into the nodes; a pull could only fail later and slower.
    container.put("imagePullPolicy", "Never");
    container.put("ports", List.of(Map.of("name", "http", "containerPort", APP_PORT)));
    container.put("readinessProbe", Map.of("httpGet", Map.of("path", "/healthz", "port", APP_PORT),
        "periodSeconds", 2));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> env = (List<Map<String, Object>>) container.get("env");
    List<Map<String, Object>> withHeap = new ArrayList<>(env);
    withHeap.add(new HashMap<>(Map.of("name", "JAVA_TOOL_OPTIONS", "value",
        String.join(" ", APP_JVM_OPTIONS))));
    container.put("env", withHeap);
  }

  @Override
  public AppPods appPods(KubernetesClient client, String namespace, String name, Path workdir) {
    return new ForwardedPods(client, namespace, name);
  }

  private RollableScalableResource<Deployment> operator() {
    return client.apps().deployments().inNamespace(OPERATOR_NAMESPACE).withName(OPERATOR_DEPLOYMENT);
  }

  private RollableScalableResource<Deployment> deployment(String name) {
    return client.apps().deployments().inNamespace(SERVICES_NAMESPACE).withName(name);
  }

  /** Waits until the Deployment has seen its latest spec and has a ready pod. */
  private void awaitReady(String namespace, String name) {
    await("Deployment " + namespace + "/" + name + " ready").atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(500))
        .until(() -> {
          Deployment d = client.apps().deployments().inNamespace(namespace).withName(name).get();
          if (d == null) {
            throw new IllegalStateException("Deployment " + namespace + "/" + name
                + " is missing: run this mode through hack/kind-e2e.sh, which installs it");
          }
          return d.getStatus() != null
              && Objects.equals(d.getStatus().getObservedGeneration(), d.getMetadata().getGeneration())
              && d.getStatus().getReadyReplicas() != null && d.getStatus().getReadyReplicas() >= 1;
        });
  }

  /** No graceful shutdown: scaled to zero, its pods deleted at once (grace period 0). */
  private void kill(RollableScalableResource<Deployment> deployment) {
    Deployment d = deployment.get();
    deployment.scale(0);
    Map<String, String> selector = d.getSpec().getSelector().getMatchLabels();
    String namespace = d.getMetadata().getNamespace();
    client.pods().inNamespace(namespace).withLabels(selector).withGracePeriod(0).delete();
    await("pods of Deployment " + namespace + "/" + d.getMetadata().getName() + " gone").atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(250))
        .until(() -> client.pods().inNamespace(namespace).withLabels(selector).list().getItems().isEmpty());
  }

  /** A port-forward to each ready pod of {@code app=<name>}, opened and closed as pods come and go. */
  private static final class ForwardedPods implements AppPods {

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private final Map<String, LocalPortForward> forwards = new HashMap<>();

    ForwardedPods(KubernetesClient client, String namespace, String name) {
      this.client = client;
      this.namespace = namespace;
      this.name = name;
    }

    @Override
    public synchronized List<Integer> ports() {
      Set<String> serving = client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null && Readiness.isPodReady(p))
          .map(p -> p.getMetadata().getName())
          .collect(Collectors.toSet());
      forwards.entrySet().removeIf(e -> {
        boolean gone = !serving.contains(e.getKey()) || !e.getValue().isAlive();
        if (gone) {
          closeQuietly(e.getValue());
        }
        return gone;
      });
      for (String pod : serving) {
        forwards.computeIfAbsent(pod, p -> client.pods().inNamespace(namespace).withName(p).portForward(APP_PORT));
      }
      return forwards.values().stream().map(LocalPortForward::getLocalPort).toList();
    }

    @Override
    public List<String> templateHashes() {
      return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems().stream()
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
          .map(p -> p.getMetadata().getLabels().getOrDefault("rollouts-pod-template-hash", ""))
          .toList();
    }

    @Override
    public synchronized void close() {
      forwards.values().forEach(ForwardedPods::closeQuietly);
      forwards.clear();
    }

    private static void closeQuietly(LocalPortForward forward) {
      try {
        forward.close();
      } catch (IOException e) {
        // the pod is gone; nothing to release
      }
    }
  }
}
