package io.warmgate.bench.operator;

import io.warmgate.bench.common.RunStamp;
import io.warmgate.testing.OperatorProcess;
import io.warmgate.testing.WarmgatePaths;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator at fleet scale: its own JVM under the chart's JVM settings, its webhook registered
 * with the real kube-apiserver, one real Redis, and a cluster of {@link FleetSettings#deployments}
 * Deployments and {@link FleetSettings#secrets} Secrets no policy is about, then
 * {@link FleetSettings#policies} CachePolicies each on its own Rollout (the benchmark plays the
 * Rollouts' controller: none runs). It measures what a platform team sizes the operator by: memory
 * and threads, metric series, how soon policies are Ready, the steady load the operator puts on
 * the API server and Valkey, and a restart of the whole fleet while pods are being admitted.
 */
public final class FleetFootprintBench {

  /** The chart's settings: its JVM options, memory limit and webhook timeout. */
  static final ChartDefaults CHART = ChartDefaults.read();

  private static final String NAMESPACE = "fleet";
  private static final Duration WITHIN = Duration.ofMinutes(5);

  private final BenchCluster cluster;
  private final Path logDir;
  private final ArgoRolloutPart argo;
  private final BenchPolicies policies;
  private final ApiServerRequests api;

  private final boolean nativeMemory;

  /**
   * @param nativeMemory run the operator with {@code -XX:NativeMemoryTracking=summary} and report
   *     its {@code VM.native_memory summary} with every policy Ready (it costs some memory itself)
   */
  FleetFootprintBench(BenchCluster cluster, Path logDir, boolean nativeMemory) {
    this.cluster = cluster;
    this.nativeMemory = nativeMemory;
    this.logDir = logDir;
    this.argo = new ArgoRolloutPart(cluster.client());
    this.policies = new BenchPolicies(cluster.client(), cluster.valkeyAddress());
    this.api = new ApiServerRequests(cluster.client());
  }

  FleetResult run(FleetSettings fleet) {
    cluster.createNamespace(NAMESPACE);
    cluster.createNamespace("warmgate-system");
    // The API server calls itself (leases, controllers of its own): counted with no operator.
    double background = apiRequestsPerSecond(fleet.steady());
    try (OperatorProcess operator = new OperatorProcess(cluster.kubeconfig(), logDir)
            .withJvmOptions(CHART.jvmCommandLine())
            .withJvmOptions(nativeMemory ? List.of("-XX:NativeMemoryTracking=summary") : List.of())
            .withWebhook();
        ReadinessWatch ready = new ReadinessWatch(cluster.client(), NAMESPACE)) {
      registerWebhook(operator.webhookPort());
      operator.start();
      OperatorLook idle = OperatorLook.of(operator);

      long unrelatedStart = System.nanoTime();
      new UnrelatedObjects(cluster).create(fleet);
      Duration unrelatedCreated = since(unrelatedStart);
      Sleep.millis(2_000); // the informers' last events
      OperatorLook withUnrelated = OperatorLook.of(operator);

      // A tenth first: the heap per policy is read between the two counts, so the fixed part
      // (classes and clients the first reconciliations load) is left out.
      int first = fleet.policies() / 10;
      addPolicies(ready, 0, first);
      ready.awaitAll(WITHIN);
      Sleep.millis(2_000);
      OperatorLook atFirst = OperatorLook.of(operator);
      long fleetStart = System.nanoTime();
      long requestsBefore = api.served();
      addPolicies(ready, first, fleet.policies());
      long lastSent = System.nanoTime();
      ready.awaitAll(WITHIN);
      Duration allReadyAfterLast = since(lastSent);
      Duration fleetCreated = Duration.ofNanos(lastSent - fleetStart);
      // Every client's, the benchmark's creates and the operator's status patches among them.
      long fleetRequests = api.served() - requestsBefore;
      Sleep.millis(5_000);
      OperatorLook loaded = OperatorLook.of(operator);
      String nativeSummary = nativeMemory
          ? Jcmd.run(operator.pid(), "VM.native_memory", "summary", "scale=MB") : null;

      Samples newPolicy = new SinglePolicies(argo, policies, ready, NAMESPACE, 1)
          .time("single", fleet.singles());

      SteadyLoad steady = steady(operator, fleet.steady(), background);
      Restart restart = Restart.of(operator, cluster.client(), NAMESPACE, "cache-0",
          fleet.policies(), WITHIN);
      return new FleetResult(fleet, background, idle, withUnrelated, atFirst, loaded,
          unrelatedCreated, fleetCreated, fleetRequests, allReadyAfterLast, newPolicy, steady,
          restart, nativeSummary, settingsDifferingFromDefaults());
    }
  }

  /** Sends Rollout and policy {@code from} to {@code to - 1}, each policy expected Ready. */
  private void addPolicies(ReadinessWatch ready, int from, int to) {
    for (int i = from; i < to; i++) {
      argo.create(NAMESPACE, "app-" + i, 1);
    }
    for (int i = from; i < to; i++) {
      ready.expect("cache-" + i, 1);
      policies.create(NAMESPACE, "cache-" + i, "app-" + i, w -> { });
    }
  }

  /**
   * What the settled fleet costs per second while nothing changes.
   *
   * @param apiRequests resource requests the API server served in the window, from every client
   * @param apiPerSecond the operator's API requests per second: {@code apiRequests} per second,
   *     less the API server's background rate
   * @param valkeyCommands commands Redis processed in the window (the operator is its only client)
   * @param valkeyPerSecond the same per second
   * @param reconciliations reconciliations started in the window
   */
  record SteadyLoad(Duration window, long apiRequests, double apiPerSecond, long valkeyCommands,
      double valkeyPerSecond, long reconciliations) {}

  private SteadyLoad steady(OperatorProcess operator, Duration window, double background) {
    double reconciled = reconciliations(operator);
    long requests = api.served();
    long commands = cluster.redis().commandsProcessed();
    long start = System.nanoTime();
    Sleep.millis(window.toMillis());
    double seconds = (System.nanoTime() - start) / 1e9;
    long served = api.served() - requests;
    // The INFO that reads the count is itself a command.
    long processed = cluster.redis().commandsProcessed() - commands - 1;
    return new SteadyLoad(window, served, Math.max(0, served / seconds - background), processed,
        processed / seconds, Math.round(reconciliations(operator) - reconciled));
  }

  private double apiRequestsPerSecond(Duration window) {
    long before = api.served();
    long start = System.nanoTime();
    Sleep.millis(window.toMillis());
    return (api.served() - before) / ((System.nanoTime() - start) / 1e9);
  }

  static double reconciliations(OperatorProcess operator) {
    return PrometheusText.sum(operator.get("metrics"),
        "operator_sdk_reconciliations_started_total", "");
  }

  /** Registers the webhook as the local demo does: by URL, {@code failurePolicy: Ignore}. */
  private void registerWebhook(int port) {
    Path file = WarmgatePaths.repoDir().resolve("examples/local/webhook.yaml");
    try {
      String yaml = Files.readString(file).replace("127.0.0.1:18443", "127.0.0.1:" + port);
      cluster.client().load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)))
          .serverSideApply();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /**
   * Runs alone: {@code java -Dwarmgate.repo.dir=$PWD -cp ...
   * io.warmgate.bench.operator.FleetFootprintBench [--quick] [--native-memory] [--out DIR]}
   * ({@code hack/bench.sh --only fleet-footprint} runs it so); prints the report and
   * writes it to {@code <out>/fleet-footprint.md}.
   */
  public static void main(String[] args) throws IOException {
    FleetSettings fleet = FleetSettings.FULL;
    boolean nativeMemory = false;
    Path out = Path.of("benchmarks", "target", "bench");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> fleet = FleetSettings.QUICK;
        case "--native-memory" -> nativeMemory = true;
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "': use "
            + "[--quick] [--native-memory] [--out DIR]");
      }
    }
    RunStamp stamp = RunStamp.now();
    FleetResult result;
    try (BenchCluster cluster = new BenchCluster().start()) {
      result = new FleetFootprintBench(cluster, out.resolve("fleet-footprint"), nativeMemory)
          .run(fleet);
    }
    String text = stamp.describe() + "\n\n" + result.render() + "\nAt the end: "
        + RunStamp.loadAverage() + ".\n";
    Files.createDirectories(out);
    Files.writeString(out.resolve("fleet-footprint.md"), text);
    System.out.println(text);
    System.exit(0); // even if a client library left a non-daemon thread behind
  }

  /** The operator's settings in this run that differ from the chart's, and why. */
  List<String> settingsDifferingFromDefaults() {
    List<String> settings = new ArrayList<>(List.of(
        "WARMGATE_VALKEY_ALLOWED_ADDRESSES=127.0.0.1 (the bench's Redis is on loopback)",
        "WARMGATE_LEADER_ELECTION=false (one replica; the chart runs two with a Lease)",
        "WARMGATE_WEBHOOK_HOSTS=127.0.0.1,localhost (the webhook is called by URL)"));
    if (nativeMemory) {
      settings.add("-XX:NativeMemoryTracking=summary (for the native memory section; it costs "
          + "a few MiB, counted in the RSS rows)");
    }
    return List.copyOf(settings);
  }

}
