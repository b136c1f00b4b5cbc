package io.warmgate.bench.operator;

import io.warmgate.testing.OperatorProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's live heap per CachePolicy: the operator as its own JVM under the chart's JVM
 * settings, against the real API server and Redis, with {@code fewer} and then {@code more}
 * policies, each on its own Rollout, all Ready; the live heap after a full GC is read from a class
 * histogram ({@code jcmd GC.class_histogram}) at both counts, so the difference divided by the
 * policies added drops the fixed part. Then the operator idles for {@code idle}, with the Valkey
 * recheck interval set to a third of it, and the reconciliations and Valkey commands in that
 * window are counted: per-policy periodic work would show there.
 */
public final class PolicyHeapBench {

  /**
   * Figures of one run.
   *
   * @param fewer, more the two policy counts
   * @param atFewer, atMore the class histograms at those counts
   * @param idleReconciliations reconciliations started while nothing changed, over {@code idle}
   * @param idleValkeyCommands commands Redis processed over the same window
   */
  public record Result(int fewer, int more, ClassHistogram atFewer, ClassHistogram atMore,
      Duration idle, long idleReconciliations, long idleValkeyCommands) {

    /** Live heap per policy added, in bytes (the CachePolicy objects included). */
    public double bytesPerPolicy() {
      return (double) (atMore.totalBytes() - atFewer.totalBytes()) / (more - fewer);
    }

    /** The top {@code n} classes of the histogram at {@code more} policies, as printed. */
    public String topAtMore(int n) {
      return atMore.top(n);
    }

    /** The {@code n} classes whose bytes grew most between the counts, per policy added. */
    public String growth(int n) {
      Map<String, ClassHistogram.Row> before = new HashMap<>();
      atFewer.rows().forEach(r -> before.put(r.className(), r));
      List<String[]> lines = new ArrayList<>();
      atMore.rows().stream().map(r -> {
        ClassHistogram.Row b = before.get(r.className());
        long bytes = r.bytes() - (b == null ? 0 : b.bytes());
        long instances = r.instances() - (b == null ? 0 : b.instances());
        return new ClassHistogram.Row(instances, bytes, r.className());
      }).sorted(Comparator.comparingLong(ClassHistogram.Row::bytes).reversed()).limit(n)
          .forEach(r -> lines.add(new String[] {
              String.format("%.1f", (double) r.instances() / (more - fewer)),
              String.format("%.0f", (double) r.bytes() / (more - fewer)), r.className()}));
      StringBuilder out = new StringBuilder("objects/policy  bytes/policy  class\n");
      lines.forEach(l -> out.append(String.format("%14s  %12s  %s%n", l[0], l[1], l[2])));
      return out.toString();
    }

    public String render() {
      return String.format("Per-policy heap: %d → %d policies, live heap after full GC %.1f → "
          + "%.1f MiB: %.1f KiB per policy (CachePolicy objects included)%n"
          + "Idle %d s (Valkey recheck every %d s): %d reconciliations, %d Valkey commands%n%n"
          + "Growth per policy added, top classes:%n%s%nClass histogram at %d policies, top 15 "
          + "(jcmd GC.class_histogram):%n%s",
          fewer, more, atFewer.totalBytes() / 1048576.0, atMore.totalBytes() / 1048576.0,
          bytesPerPolicy() / 1024, idle.toSeconds(), recheck(idle).toSeconds(),
          idleReconciliations, idleValkeyCommands, growth(15), more, topAtMore(15));
    }
  }

  private static final String NAMESPACE = "heap";
  private static final Duration WITHIN = Duration.ofMinutes(3);

  private final BenchCluster cluster;
  private final Path logDir;
  private final ArgoRolloutPart argo;
  private final BenchPolicies policies;

  PolicyHeapBench(BenchCluster cluster, Path logDir) {
    this.cluster = cluster;
    this.logDir = logDir;
    this.argo = new ArgoRolloutPart(cluster.client());
    this.policies = new BenchPolicies(cluster.client(), cluster.valkeyAddress());
  }

  /** The Valkey recheck interval of the run: a third of the idle window. */
  static Duration recheck(Duration idle) {
    return idle.dividedBy(3);
  }

  /**
   * Measures at {@code fewer} then {@code more} policies, then idles for {@code idle}.
   *
   * @throws IllegalArgumentException unless 0 ≤ fewer < more and idle ≥ 3 s
   */
  Result run(int fewer, int more, Duration idle) {
    if (fewer < 0 || more <= fewer) {
      throw new IllegalArgumentException("policy counts must satisfy 0 <= fewer < more, got "
          + fewer + " and " + more + "; pass e.g. --policies 200,1000");
    }
    if (idle.compareTo(Duration.ofSeconds(3)) < 0) {
      throw new IllegalArgumentException("the idle window must be at least 3 s, got " + idle);
    }
    cluster.createNamespace(NAMESPACE);
    try (OperatorProcess operator = new OperatorProcess(cluster.kubeconfig(), logDir)
            .withJvmOptions(FootprintBench.JVM_OPTIONS)
            .withEnv("WARMGATE_VALKEY_RECHECK_INTERVAL", recheck(idle).toSeconds() + "s");
        ReadinessWatch ready = new ReadinessWatch(cluster.client(), NAMESPACE)) {
      operator.start();
      addPolicies(ready, 0, fewer);
      Sleep.millis(2_000);
      ClassHistogram atFewer = ClassHistogram.of(operator.pid());
      addPolicies(ready, fewer, more);
      Sleep.millis(2_000);
      ClassHistogram atMore = ClassHistogram.of(operator.pid());
      double reconciles = reconciliations(operator);
      long commands = cluster.redis().commandsProcessed();
      Sleep.millis(idle.toMillis());
      long idleCommands = cluster.redis().commandsProcessed() - commands;
      long idleReconciles = Math.round(reconciliations(operator) - reconciles);
      return new Result(fewer, more, atFewer, atMore, idle, idleReconciles, idleCommands);
    }
  }

  private void addPolicies(ReadinessWatch ready, int from, int to) {
    for (int i = from; i < to; i++) {
      argo.create(NAMESPACE, "app-" + i, 1);
    }
    for (int i = from; i < to; i++) {
      ready.expect("cache-" + i, 1);
      policies.create(NAMESPACE, "cache-" + i, "app-" + i, w -> { });
    }
    ready.awaitAll(WITHIN);
  }

  private static double reconciliations(OperatorProcess operator) {
    return PrometheusText.sum(operator.get("metrics"),
        "operator_sdk_reconciliations_started_total", "");
  }

  /**
   * Runs alone: {@code java -cp ... io.warmgate.bench.operator.PolicyHeapBench [--policies
   * FEWER,MORE] [--idle SECONDS] [--out DIR]}; prints the figures and writes them to
   * {@code <out>/policy-heap.txt}.
   */
  public static void main(String[] args) throws IOException {
    int fewer = 200;
    int more = 1_000;
    Duration idle = Duration.ofSeconds(30);
    Path out = Path.of("benchmarks", "target", "bench");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--policies" -> {
          String[] counts = args[++i].split(",");
          fewer = Integer.parseInt(counts[0].trim());
          more = Integer.parseInt(counts[1].trim());
        }
        case "--idle" -> idle = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "': use "
            + "[--policies FEWER,MORE] [--idle SECONDS] [--out DIR]");
      }
    }
    Result result;
    try (BenchCluster cluster = new BenchCluster().start()) {
      result = new PolicyHeapBench(cluster, out.resolve("policy-heap")).run(fewer, more, idle);
    }
    String text = result.render();
    try {
      Files.createDirectories(out);
      Files.writeString(out.resolve("policy-heap.txt"), text);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + out.resolve("policy-heap.txt"), e);
    }
    System.out.println(text);
    System.exit(0);
  }
}
