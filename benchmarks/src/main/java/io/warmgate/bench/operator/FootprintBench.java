package io.warmgate.bench.operator;

import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.testing.OperatorProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The operator as its own JVM (so its memory is its own) against the real API server and Redis:
 * memory and reconcile latency idle (0 policies), then with N CachePolicies each targeting its own
 * Rollout.
 */
final class FootprintBench {

  /**
   * The chart's default {@code jvmOptions}, with the JVM told the chart's memory limit so that
   * heap sizing is that of the Pod.
   */
  static final List<String> JVM_OPTIONS = ChartDefaults.read().jvmCommandLine();

  /**
   * Figures of one run.
   *
   * @param idle the idle operator after settling, before any policy existed
   * @param loaded the operator with every policy Ready, after settling
   * @param afterUpdate the operator after the update round, after settling
   * @param singleIdle create → Ready of one policy at a time while no other exists (after one
   *     unrecorded policy)
   * @param singleLoaded create → Ready of one policy at a time while N others are managed
   * @param burstCreate create → Ready of N policies created back to back
   * @param burstUpdate update → Ready (new observedGeneration) of N policies patched back to back
   */
  record Result(int policies, ProcessSample idle, ProcessSample loaded, ProcessSample afterUpdate,
      Samples singleIdle, Samples singleLoaded, Samples burstCreate, Samples burstUpdate) {}

  private static final String NAMESPACE = "footprint";
  private static final Duration WITHIN = Duration.ofSeconds(120);

  private final BenchCluster cluster;
  private final OperatorBenchSettings settings;
  private final Path logDir;
  private final ArgoRolloutPart argo;
  private final BenchPolicies policies;

  FootprintBench(BenchCluster cluster, OperatorBenchSettings settings, Path logDir) {
    this.cluster = cluster;
    this.settings = settings;
    this.logDir = logDir;
    this.argo = new ArgoRolloutPart(cluster.client());
    this.policies = new BenchPolicies(cluster.client(), cluster.valkeyAddress());
  }

  Result run() {
    cluster.createNamespace(NAMESPACE);
    int n = settings.policies();
    int singles = settings.quick() ? 3 : 10;
    try (OperatorProcess operator = new OperatorProcess(cluster.kubeconfig(), logDir)
            .withJvmOptions(JVM_OPTIONS);
        ReadinessWatch ready = new ReadinessWatch(cluster.client(), NAMESPACE)) {
      SinglePolicies single = new SinglePolicies(argo, policies, ready, NAMESPACE,
          settings.pods());
      operator.start();
      Sleep.millis(settings.settle().toMillis());
      ProcessSample idle = ProcessSample.of(operator);
      single.time("warmup", 1); // the first reconciliation ever loads classes and connects
      Samples singleIdle = single.time("idle", singles);

      for (int i = 0; i < n; i++) {
        argo.create(NAMESPACE, "app-" + i, settings.pods());
      }
      for (int i = 0; i < n; i++) {
        ready.expect("cache-" + i, 1);
        policies.create(NAMESPACE, "cache-" + i, "app-" + i, w -> { });
      }
      Samples burstCreate = ready.awaitAll(WITHIN);
      Sleep.millis(settings.settle().toMillis());
      ProcessSample loaded = ProcessSample.of(operator);
      Samples singleLoaded = single.time("loaded", singles);

      for (int i = 0; i < n; i++) {
        ready.expect("cache-" + i, 2);
        cluster.client().resources(CachePolicy.class).inNamespace(NAMESPACE).withName("cache-" + i)
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"l1Ttl\":\"30s\"}}");
      }
      Samples burstUpdate = ready.awaitAll(WITHIN);
      Sleep.millis(settings.settle().toMillis());
      ProcessSample afterUpdate = ProcessSample.of(operator);
      return new Result(n, idle, loaded, afterUpdate, singleIdle, singleLoaded, burstCreate,
          burstUpdate);
    }
  }
}
