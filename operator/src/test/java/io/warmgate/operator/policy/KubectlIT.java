package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.operator.WarmgateOperator;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What a user does with the real kubectl: apply, wait, get, explain, describe. */
class KubectlIT {

  @RegisterExtension
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @TempDir
  static Path dir;

  static Path kubeconfig;
  static WarmgateOperator operator;

  @BeforeAll
  static void installWithKubectl() throws Exception {
    kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, api.kubeconfig());
    kubectl("apply", "--server-side", "-f", ApiServer.cachePolicyCrd().toString());
    kubectl("apply", "--server-side", "-f", ApiServer.rolloutCrd().toString());
    // kubectl wait fails at once ("status.conditions accessor error") on a CRD the API server has
    // not given a status yet, so a script retries it, as this does.
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1))
        .until(() -> run("wait", "--for=condition=Established", "--timeout=10s",
            "crd/cachepolicies.warmgate.io", "crd/rollouts.argoproj.io").exit() == 0);
    operator = Policies.startOperator(api.client());
  }

  @AfterAll
  static void stopOperator() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void waitForReadyOnTheMinimalExample() throws Exception {
    String ns = api.newNamespace("kubectl");
    new Policies(api.client()).rollout(ns, "deal-service");
    String minimal = Files.readString(ApiServer.repoDir().resolve(
        "examples/cachepolicy-minimal.yaml")).replace("valkey.cache.svc:6379",
        redis.host() + ":" + redis.port());
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(policy, minimal);

    kubectl("apply", "-n", ns, "-f", policy.toString());
    String waited = kubectl("wait", "-n", ns, "--for=condition=Ready", "--timeout=60s",
        "cpol/deals");

    assertThat(waited).contains("condition met");
    String table = kubectl("get", "-n", ns, "cpol");
    assertThat(table.lines().findFirst().orElseThrow())
        .contains("NAME", "TARGET", "READY", "GATE", "STABLE", "CANARY", "COVERAGE", "AGE");
    assertThat(table).containsPattern("deals\\s+.*True");
    assertThat(kubectl("describe", "-n", ns, "cpol", "deals"))
        .contains("Reconciled").contains("Connected");
  }

  @Test
  void explainDescribesTheFields() throws Exception {
    // The API server publishes a new CRD's OpenAPI schema shortly after it is Established.
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(kubectl("explain", "cpol.spec.l1Ttl"))
            .contains("How long a value stays in a pod's in-process L1 cache"));
    assertThat(kubectl("explain", "cachepolicy.spec.warmup.onTimeout"))
        .contains("Hold keeps the rollout paused");
    assertThat(kubectl("explain", "cpol.status.conditions.reason"))
        .contains("CamelCase reason");
  }

  @Test
  void invalidPolicyIsRefusedWithTheFieldInTheMessage() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, """
        apiVersion: warmgate.io/v1alpha1
        kind: CachePolicy
        metadata: {name: bad, namespace: default}
        spec:
          targetRef: {kind: Deployment, name: app}
          cacheName: deals
          valkey: {addresses: ["valkey:6379"]}
          l1Ttl: 2m
        """);

    Result result = run("apply", "-f", bad.toString());

    assertThat(result.exit()).isNotZero();
    assertThat(result.output()).contains("spec.maxStaleness")
        .contains("l1Ttl + l2Ttl (2m + 4m) must not exceed maxStaleness (5m)");
  }

  record Result(int exit, String output) {}

  static String kubectl(String... args) throws IOException, InterruptedException {
    Result result = run(args);
    if (result.exit() != 0) {
      throw new AssertionError("kubectl " + String.join(" ", args) + " exited " + result.exit()
          + ":\n" + result.output());
    }
    return result.output();
  }

  static Result run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(kubectlBinary());
    command.add("--kubeconfig=" + kubeconfig);
    command.add("--cache-dir=" + dir.resolve("kube-cache"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 90s");
    }
    return new Result(process.exitValue(), output);
  }

  static String kubectlBinary() {
    Path cached = ApiServer.cacheDir().resolve("kube-api-test/k8s/"
        + ApiServer.KUBERNETES_VERSION + "-linux-amd64/kubectl");
    return Files.isExecutable(cached) ? cached.toString() : "kubectl";
  }
}
