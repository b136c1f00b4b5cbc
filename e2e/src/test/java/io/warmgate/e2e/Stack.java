package io.warmgate.e2e;

import com.google.cloud.spanner.DatabaseClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.testing.KwokClusterExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;

/**
 * Where the parts under test run (the operator, the app's pods, Valkey, the Spanner emulator) and
 * how the test reaches them: {@link LocalStack} runs them as local processes next to a kwok cluster
 * (the default); {@link InClusterStack}, chosen by {@value #IN_CLUSTER_ENV}{@code =1}
 * ({@code hack/kind-e2e.sh}), finds them running in a real cluster.
 */
interface Stack extends BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

  String IN_CLUSTER_ENV = "WARMGATE_E2E_IN_CLUSTER";

  /**
   * The app pods' JVM options. A pod lives for one scenario at a few hundred lookups a second:
   * C1 code serves that, and without C2's compilations and G1's threads the pods that start
   * together start in half the time and leave the two cores to the emulator and the operator.
   */
  List<String> APP_JVM_OPTIONS = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  static Stack create() {
    return "1".equals(System.getenv(IN_CLUSTER_ENV)) ? new InClusterStack() : new LocalStack(false);
  }

  /** The local stack with a Redis cluster (three primaries, three replicas) as L2. */
  static Stack withValkeyCluster() {
    return new LocalStack(true);
  }

  /** Once the cluster is up: what the operator needs in the cluster, then the operator itself. */
  void install(KwokClusterExtension cluster) throws Exception;

  /** {@code host:port} of Valkey as the operator and the pods reach it (the policy's address). */
  String valkeyAddress();

  /** {@code redis://host:port} of Valkey as this test reaches it. */
  String valkeyUri();

  /** Whether L2 is a Valkey cluster, whose seed nodes {@link #valkeyAddresses()} lists. */
  default boolean valkeyCluster() {
    return false;
  }

  /** The policy's {@code valkey.addresses}: the server, or the cluster's seed nodes. */
  default List<String> valkeyAddresses() {
    return List.of(valkeyAddress());
  }

  /** The app container's {@code SPANNER_*} settings. */
  Map<String, String> spannerEnv();

  /** The database the pods read, as this test reaches it (to seed it). */
  DatabaseClient databaseClient();

  /**
   * Applies {@code statement} (DDL) to the database the pods read, unless the emulator answers
   * that what it creates already exists.
   */
  void applyDdl(String statement) throws Exception;

  /** An origin outage: the emulator is killed. */
  void stopSpanner();

  /** The emulator back, its database empty with the schema. */
  void startSpanner() throws Exception;

  /**
   * An origin that stops answering but keeps its data: the emulator is frozen, so reads fail at
   * their deadline, until {@link #thawSpanner()}.
   */
  void freezeSpanner();

  /** The frozen emulator answers again, with the rows it held. */
  void thawSpanner();

  /** An L2 outage: Valkey is killed; it stays down until {@link #startValkey()}. */
  void stopValkey();

  /** Valkey back at the same address ({@link #valkeyAddress()}, {@link #valkeyUri()}), empty. */
  void startValkey();

  /**
   * Fails, naming each refused request, if the API server refused the operator anything during
   * this test: the operator runs with the chart's RBAC, so that is a permission the chart lacks.
   * Does nothing where the stack does not read the operator's log.
   */
  default void assertNothingRefused() {}

  /** Starts the operator and waits until it is ready. */
  void startOperator();

  /** Kills the operator without a graceful shutdown; it stays down until {@link #startOperator()}. */
  void killOperator() throws InterruptedException;

  /**
   * {@code host:port} where this test scrapes the operator's {@code /metrics}.
   *
   * @throws UnsupportedOperationException where the stack does not expose it to the test
   */
  default String operatorMetricsAddress() {
    throw new UnsupportedOperationException(getClass().getSimpleName()
        + " does not expose the operator's metrics port to the test");
  }

  /** Adapts the example app container (a map of the Rollout's pod template) to where pods run. */
  void adaptAppContainer(Map<String, Object> container);

  /** Runs or finds the pods matching {@code app=<name>} and reaches their HTTP port. */
  AppPods appPods(KubernetesClient client, String namespace, String name, Path workdir);

  /** The serving pods of one app, each reachable on a local port. */
  interface AppPods extends AutoCloseable {

    /** The local ports of the pods that serve and are Ready now: where a Service sends traffic. */
    List<Integer> ports();

    /** The {@code rollouts-pod-template-hash} of each pod that runs now, serving or not yet. */
    List<String> templateHashes();

    @Override
    void close();
  }
}
