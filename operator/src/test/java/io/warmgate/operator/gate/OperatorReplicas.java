package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.testing.OperatorProcess;
import io.warmgate.testing.WarmgatePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Operator replicas as separate JVMs sharing one Lease with short timings; each logs to its own
 * directory under target/test-processes. Closing stops every replica still running.
 */
final class OperatorReplicas implements AutoCloseable {

  static final String LEASE_NAMESPACE = "warmgate-system";
  static final String LEASE = "warmgate-operator";
  /** Short, so that a follower takes over a killed leader within seconds. */
  static final Duration LEASE_DURATION = Duration.ofSeconds(6);

  private final KubernetesClient client;
  private final Path kubeconfig;
  private final String watched;
  private final Map<String, OperatorProcess> replicas = new LinkedHashMap<>();

  /** Replicas watching namespace {@code watched} of the API server of {@code admin}. */
  OperatorReplicas(KubernetesClient admin, String kubeconfigYaml, String watched) {
    this.client = admin;
    this.watched = watched;
    this.kubeconfig = WarmgatePaths.processLogDir().resolve("two-replicas.kubeconfig");
    try {
      Files.writeString(kubeconfig, kubeconfigYaml);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + kubeconfig, e);
    }
    if (client.namespaces().withName(LEASE_NAMESPACE).get() == null) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata()
          .withName(LEASE_NAMESPACE).endMetadata().build()).create();
    }
  }

  /** Starts replica {@code identity} and returns once it is ready (leader or follower). */
  void start(String identity) {
    try {
      // A fresh log per run, so that what a replica logged can be counted.
      Files.deleteIfExists(logDir(identity).resolve("operator.log"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the old log of " + identity, e);
    }
    OperatorProcess replica = new OperatorProcess(kubeconfig, logDir(identity))
        .withEnv("POD_NAME", identity)
        .withEnv("WARMGATE_LEADER_ELECTION", "true")
        .withEnv("WARMGATE_LEASE_NAMESPACE", LEASE_NAMESPACE)
        .withEnv("WARMGATE_LEASE_NAME", LEASE)
        .withEnv("WARMGATE_LEASE_DURATION", LEASE_DURATION.toSeconds() + "s")
        .withEnv("WARMGATE_LEASE_RENEW_DEADLINE", "4s")
        .withEnv("WARMGATE_LEASE_RETRY_PERIOD", "500ms")
        .withEnv("WARMGATE_NAMESPACES", watched)
        .withEnv("WARMGATE_VALKEY_RECHECK_INTERVAL", "1s")
        .withEnv("WARMGATE_VALKEY_TIMEOUT", "1s")
        .withJvmOptions(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"));
    replicas.put(identity, replica);
    replica.start();
  }

  /** The Lease's holder, or null while nobody holds it. */
  String holder() {
    Lease lease = client.leases().inNamespace(LEASE_NAMESPACE).withName(LEASE).get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  /** SIGKILLs replica {@code identity}: it neither releases the Lease nor finishes anything. */
  void kill(String identity) {
    replicas.get(identity).kill();
  }

  /** The sum of the samples of counter {@code name} on replica {@code identity}'s /metrics. */
  double counter(String identity, String name) {
    return replicas.get(identity).get("metrics").lines()
        .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }

  /** The lines of replica {@code identity}'s log containing {@code fragment}. */
  List<String> logLines(String identity, String fragment) {
    Path log = logDir(identity).resolve("operator.log");
    try {
      return Files.exists(log)
          ? Files.readAllLines(log).stream().filter(l -> l.contains(fragment)).toList()
          : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log, e);
    }
  }

  @Override
  public void close() {
    replicas.values().forEach(OperatorProcess::close);
  }

  private static Path logDir(String identity) {
    return WarmgatePaths.processLogDir().resolve("two-replicas-" + identity);
  }
}
