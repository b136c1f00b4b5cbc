package io.warmgate.bench;

import io.warmgate.bench.common.RunStamp;
import io.warmgate.bench.common.Summary;
import io.warmgate.bench.fleet.FleetBench;
import io.warmgate.bench.freshness.FreshnessBench;
import io.warmgate.bench.operator.OperatorBench;
import io.warmgate.bench.release.ReleaseBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs warmgate's benchmarks and writes {@code <out>/report.md} (plus JSON per part), every figure
 * beside its baseline from the same run. Arguments: {@code [--quick] [--out DIR] [--only
 * jmh,fleet,release,operator,cluster,freshness,scale] [--agents K --deals N --skew S --requests R
 * --seed X] [--release-<name> value] [--scale-<name> value] [--freshness-<name> value]
 * [--gate-timings FILE]}, the last being what {@code GateTimingE2E}
 * recorded on the whole stack; {@code --quick} is a
 * smoke run whose figures are not to be quoted.
 */
public final class BenchMain {

  private static final List<String> PARTS = List.of("jmh", "fleet", "release", "operator");
  /**
   * Parts run only when named with {@code --only}: the L2 benchmarks again on a Redis cluster
   * (JMH L2 hit, fleet cold start), summarised apart in {@code cluster-summary.md}; staleness
   * after a write with change streams, in {@code freshness-summary.md}; the release at production
   * traffic against the modelled origin, in {@code scale-summary.md}.
   */
  private static final List<String> EXTRA_PARTS = List.of("cluster", "freshness", "scale");

  private BenchMain() {}

  /**
   * Runs the benchmarks; exits 1 on any failure, so that a part that failed while threads of the
   * components it started still run (operator, clients) does not leave the JVM running.
   */
  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void run(String[] args) throws Exception {
    boolean quick = false;
    Path out = Path.of("target", "bench");
    Set<String> parts = new LinkedHashSet<>(PARTS);
    Map<String, String> fleetOverrides = new LinkedHashMap<>();
    Map<String, String> releaseOverrides = new LinkedHashMap<>();
    Map<String, String> freshnessOverrides = new LinkedHashMap<>();
    Map<String, String> scaleOverrides = new LinkedHashMap<>();
    Path gateTimings = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--quick" -> quick = true;
        case "--out" -> out = Path.of(value(args, ++i, arg));
        case "--only" -> parts = only(value(args, ++i, arg));
        case "--gate-timings" -> gateTimings = Path.of(value(args, ++i, arg));
        case "--agents", "--deals", "--skew", "--requests", "--seed" ->
            fleetOverrides.put(arg.substring(2), value(args, ++i, arg));
        default -> {
          if (arg.startsWith("--release-")) {
            releaseOverrides.put(arg.substring("--release-".length()), value(args, ++i, arg));
          } else if (arg.startsWith("--scale-")) {
            scaleOverrides.put(arg.substring("--scale-".length()), value(args, ++i, arg));
          } else if (arg.startsWith("--freshness-")) {
            freshnessOverrides.put(arg.substring("--freshness-".length()), value(args, ++i, arg));
          } else {
            throw usage(arg);
          }
        }
      }
    }
    Files.createDirectories(out);
    Files.deleteIfExists(out.resolve("summary.md"));
    Files.deleteIfExists(out.resolve("cluster-summary.md"));
    Files.deleteIfExists(out.resolve("freshness-summary.md"));
    Files.deleteIfExists(out.resolve("scale-summary.md"));
    StringBuilder report = new StringBuilder("# warmgate benchmarks\n\n");
    if (quick) {
      report.append("Quick smoke run (small sizes, short iterations): the figures only show that the"
          + " benchmarks run.\n\n");
    }
    report.append(RunStamp.now().describe()).append("\n\n");
    long start = System.nanoTime();
    Summary summary = new Summary();
    if (parts.contains("jmh")) {
      report.append(JmhBench.run(out, quick, summary));
    }
    double preloadIdsPerSecond = OperatorBench.DEFAULT_PRELOAD_KEYS_PER_SECOND;
    if (parts.contains("fleet")) {
      FleetBench.Report fleet = FleetBench.run(out, quick, fleetOverrides, summary);
      report.append(fleet.markdown());
      preloadIdsPerSecond = fleet.preloadIdsPerSecond();
    }
    if (parts.contains("release")) {
      report.append(ReleaseBench.run(out, quick, releaseOverrides, summary));
    }
    if (parts.contains("operator")) {
      report.append(OperatorBench.run(out, quick, preloadIdsPerSecond, summary));
    }
    if (parts.contains("cluster")) {
      Summary onCluster = new Summary();
      report.append(JmhBench.runOnCluster(out, quick, onCluster));
      report.append(FleetBench.runOnCluster(out, quick, fleetOverrides, onCluster));
      if (!quick) {
        Files.writeString(out.resolve("cluster-summary.md"), onCluster.markdown());
      }
    }
    if (parts.contains("freshness")) {
      Summary freshness = new Summary();
      report.append(FreshnessBench.run(out, quick, freshnessOverrides, freshness));
      if (!quick) {
        Files.writeString(out.resolve("freshness-summary.md"), freshness.markdown());
      }
    }
    if (parts.contains("scale")) {
      Summary scale = new Summary();
      report.append(ReleaseBench.runAtScale(out, quick, scaleOverrides, scale));
      if (!quick) {
        Files.writeString(out.resolve("scale-summary.md"), scale.markdown());
      }
    }
    if (gateTimings != null) {
      report.append(GateTimings.render(gateTimings, summary));
    }
    report.append("Whole run: ").append(Duration.ofNanos(System.nanoTime() - start).toSeconds())
        .append(" s; ").append(RunStamp.loadAverage()).append(" at its end.\n");
    Files.writeString(out.resolve("report.md"), report);
    if (!quick && parts.containsAll(PARTS)) {
      // Only a full run of every part may stand for docs/performance.md's table (hack/bench.sh copies it).
      Files.writeString(out.resolve("summary.md"), summary.markdown());
    }
    System.out.println(report);
  }

  private static IllegalArgumentException usage(String arg) {
    return new IllegalArgumentException("unknown argument '" + arg + "': use [--quick] [--out DIR] "
        + "[--only " + String.join(",", PARTS) + "," + String.join(",", EXTRA_PARTS) + "] [--gate-timings FILE] [--agents K] [--deals N] [--skew S] "
        + "[--requests R] [--seed X] [--release-<name> value, name one of agents, deals, skew, rate,"
        + " ids-per-request, hot-set-size, preload-rate, time-factor, learn-half-lives, "
        + "hot-sample-period, seed, origin, nodes, repetitions, window, l2-timeout-ms] "
        + "[--scale-<name> value, the same names] [--freshness-<name> value, name one of agents, deals, skew, "
        + "lookups, change-rate, changes, seed]");
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return args[i];
  }

  private static Set<String> only(String list) {
    Set<String> chosen = new LinkedHashSet<>(List.of(list.split(",")));
    for (String part : chosen) {
      if (!PARTS.contains(part) && !EXTRA_PARTS.contains(part)) {
        throw new IllegalArgumentException("--only " + list + ": unknown part '" + part
            + "', choose from " + String.join(",", PARTS) + "," + String.join(",", EXTRA_PARTS));
      }
    }
    return chosen;
  }
}
