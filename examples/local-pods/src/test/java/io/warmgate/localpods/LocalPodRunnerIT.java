package io.warmgate.localpods;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.testing.KubeApiServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the real API server, with pods made Running through the status subresource the way kwok
 * does it.
 */
class LocalPodRunnerIT {

  @RegisterExtension
  static final KubeApiServerExtension kube = new KubeApiServerExtension();

  private static final String NS = "local-pods";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir
  Path workdir;

  private LocalPodRunner runner;

  @BeforeEach
  void setUp() {
    KubernetesClient client = kube.client();
    if (client.namespaces().withName(NS).get() == null) {
      client.resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
      client.resource(new SecretBuilder().withNewMetadata().withName("valkey").withNamespace(NS).endMetadata()
          .withStringData(Map.of("password", "s3cret")).build()).create();
    }
    // The process writes its environment to a file named after its pod, then waits to be stopped.
    List<String> command = List.of("sh", "-c",
        "env | grep -E '^(POD|HASH|PASSWORD|GREETING|PORT|PORT_FILE)=' | sort > \"$OUT/$POD.env\"; exec sleep 600");
    runner = new LocalPodRunner(client, NS, "app=demo", "app", command, workdir).start();
  }

  @AfterEach
  void tearDown() {
    runner.close();
    kube.client().pods().inNamespace(NS).delete();
  }

  private Pod pod(String name, String hash) {
    return new PodBuilder()
        .withNewMetadata().withName(name).withNamespace(NS)
        .withLabels(Map.of("app", "demo", "rollouts-pod-template-hash", hash)).endMetadata()
        .withNewSpec().withNodeName("kwok-node-0")
        .addNewContainer().withName("sidecar").withImage("example.invalid/sidecar:1").endContainer()
        .addNewContainer().withName("app").withImage("example.invalid/app:1")
        .addNewEnv().withName("OUT").withValue(workdir.toString()).endEnv()
        .addNewEnv().withName("POD").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name").endFieldRef().endValueFrom().endEnv()
        .addNewEnv().withName("HASH").withNewValueFrom().withNewFieldRef()
            .withFieldPath("metadata.labels['rollouts-pod-template-hash']").endFieldRef().endValueFrom().endEnv()
        .addNewEnv().withName("PASSWORD").withNewValueFrom().withNewSecretKeyRef("password", "valkey", false)
            .endValueFrom().endEnv()
        .addNewEnv().withName("GREETING").withValue("hello $(POD)").endEnv()
        .endContainer().endSpec()
        .build();
  }

  private void markRunning(String name) {
    Pod pod = kube.client().pods().inNamespace(NS).withName(name).get();
    pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running").build());
    kube.client().resource(pod).updateStatus();
  }

  @Test
  void runsAProcessPerRunningPodWithTheResolvedEnvironment() throws Exception {
    kube.client().resource(pod("demo-1", "abc123")).create();
    assertThat(runner.pods()).as("a pending pod gets no process").isEmpty();

    markRunning("demo-1");

    Path envFile = workdir.resolve("demo-1.env");
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(envFile) && Files.size(envFile) > 0);
    LocalPodRunner.LocalPod local = runner.pods().get("demo-1");
    assertThat(Files.readAllLines(envFile)).containsExactly(
        "GREETING=hello demo-1",
        "HASH=abc123",
        "PASSWORD=s3cret",
        "POD=demo-1",
        "PORT=0",
        "PORT_FILE=" + workdir.resolve("demo-1.port"));
    assertThat(local.templateHash()).isEqualTo("abc123");
    assertThat(local.serving()).as("the process reported no port").isFalse();
    assertThat(Files.readString(workdir.resolve("pods.tsv"))).as("only pods that serve are listed").isEmpty();
  }

  @Test
  void podsStartedTogetherServeOnPortsOfTheirOwn() throws Exception {
    int count = 6;
    Path testClasses = Path.of(PortReportingServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> server = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp", testClasses.toString(), PortReportingServer.class.getName());
    List<String> names = IntStream.rangeClosed(1, count).mapToObj(i -> "serve-" + i).toList();
    try (LocalPodRunner serving = new LocalPodRunner(kube.client(), NS, "app=serving", "app", server,
        workdir.resolve("serving")).start()) {
      for (String name : names) {
        Pod pod = pod(name, "mno345");
        pod.getMetadata().getLabels().put("app", "serving");
        kube.client().resource(pod).create();
      }
      names.forEach(this::markRunning);

      await().atMost(Duration.ofSeconds(90)).until(() -> serving.pods().values().stream()
          .filter(LocalPodRunner.LocalPod::serving).count() == count);

      Map<String, LocalPodRunner.LocalPod> pods = serving.pods();
      assertThat(pods.values().stream().map(LocalPodRunner.LocalPod::port).distinct()).hasSize(count);
      for (String name : names) {
        HttpResponse<String> health = HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + pods.get(name).port() + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).as("GET /healthz of %s", name).isEqualTo(200);
        assertThat(health.body()).as("the process answering on %s's port", name).isEqualTo(name);
      }
      assertThat(Files.readAllLines(workdir.resolve("serving").resolve("pods.tsv"))).containsExactlyElementsOf(
          names.stream().sorted().map(n -> n + "\t" + pods.get(n).port() + "\t" + pods.get(n).pid() + "\tmno345")
              .toList());
      String targets = Files.readString(workdir.resolve("serving").resolve("targets.json"));
      for (String name : names) {
        assertThat(targets).as("Prometheus file_sd targets").contains("{\"targets\": [\"127.0.0.1:"
            + pods.get(name).port() + "\"], \"labels\": {\"namespace\": \"" + NS
            + "\", \"pod\": \"" + name + "\"}}");
      }
    }
  }

  @Test
  void stopsTheProcessWhenThePodIsDeleted() {
    kube.client().resource(pod("demo-2", "def456")).create();
    markRunning("demo-2");
    await().atMost(Duration.ofSeconds(20)).until(() -> runner.pods().containsKey("demo-2"));
    ProcessHandle process = runner.pods().get("demo-2").process().toHandle();

    kube.client().pods().inNamespace(NS).withName("demo-2").withGracePeriod(0).delete();

    await().atMost(Duration.ofSeconds(20)).until(() -> !process.isAlive());
    assertThat(runner.pods()).doesNotContainKey("demo-2");
  }

  @Test
  void aPodWhoseSecretIsMissingIsNotStarted() {
    Pod pod = pod("demo-3", "ghi789");
    pod.getSpec().getContainers().get(1).getEnv().get(3).getValueFrom().getSecretKeyRef().setName("absent");
    kube.client().resource(pod).create();
    markRunning("demo-3");
    kube.client().resource(pod("demo-4", "ghi789")).create();
    markRunning("demo-4");

    await().atMost(Duration.ofSeconds(20)).until(() -> runner.pods().containsKey("demo-4"));
    assertThat(runner.pods()).doesNotContainKey("demo-3");
  }

  @Test
  void restartsAProcessThatExitsWhileItsPodExists() throws Exception {
    Path starts = workdir.resolve("crashing.starts");
    try (LocalPodRunner crashing = new LocalPodRunner(kube.client(), NS, "app=crashing", null,
        List.of("sh", "-c", "echo started >> \"" + starts + "\"; exit 3"), workdir.resolve("crashing")).start()) {
      Pod pod = pod("crash-1", "jkl012");
      pod.getMetadata().getLabels().put("app", "crashing");
      kube.client().resource(pod).create();
      markRunning("crash-1");

      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(starts) && Files.readAllLines(starts).size() >= 3);

      kube.client().pods().inNamespace(NS).withName("crash-1").withGracePeriod(0).delete();
      await().atMost(Duration.ofSeconds(20)).until(() -> !crashing.pods().containsKey("crash-1"));
      int afterDelete = Files.readAllLines(starts).size();
      // The restart that was due when the pod went (back-off 1 s, 2 s, 4 s, 8 s, ...) has come
      // and found the pod gone.
      await("the pending restart found the pod gone").atMost(Duration.ofSeconds(40))
          .pollInterval(Duration.ofMillis(100)).until(() -> crashing.stopped("crash-1"));
      assertThat(Files.readAllLines(starts)).as("no restart once the pod is gone").hasSize(afterDelete);
    }
  }
}
