package io.warmgate.bench.release;

import io.warmgate.bench.common.Summary;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The report of the release at production traffic: each strategy's figures as the median and the
 * range of its repetitions, and the bars of the design judged on the medians.
 */
final class ScaleReport {

  /** The chart's file name, in the output directory. */
  static final String CHART = "release-scale-origin-reads.svg";
  /** The chart of the CPU asked of the modelled origin. */
  static final String CPU_CHART = "release-scale-origin-cpu.svg";

  /** (a) must show the spike: its peak at least this many times the steady origin rate. */
  static final double SPIKE_FACTOR = 5;
  /** (e)'s peak at most this many times steady + preloadRate. */
  static final double PRELOAD_PEAK_FACTOR = 1.2;
  /** (e)'s origin reads at most this many times (a)'s. */
  static final double READS_FACTOR = 1.05;
  /** (e)'s release at most this long in the real practice, seconds. */
  static final double RELEASE_BAR_SECONDS = 180;

  private ScaleReport() {}

  /** Per strategy, the run whose peak is the median of its repetitions (the lower of two). */
  static List<ReleaseResult> medianRuns(List<ReleaseResult> results) {
    List<ReleaseResult> median = new ArrayList<>();
    byStrategy(results).forEach((strategy, runs) -> {
      List<ReleaseResult> sorted = new ArrayList<>(runs);
      sorted.sort(Comparator.comparingDouble(ReleaseResult::peakPerSecond));
      median.add(sorted.get((sorted.size() - 1) / 2));
    });
    return median;
  }

  static String markdown(ReleaseBench.Played played, Summary summary) {
    ReleaseParams p = played.params();
    Map<Strategy, List<ReleaseResult>> runs = byStrategy(played.results());
    SpannerCapacity.Settings origin = SpannerCapacity.Settings.of(played.nodes());
    StringBuilder md = new StringBuilder("## Release at production traffic\n\n");
    md.append(p.describe()).append(String.format(Locale.ROOT, ". Real agents in this JVM, real "
        + "Redis, kube-apiserver and warmgate operator (the benchmark writes the Rollout's status as"
        + " the Argo controller would). **The origin is a stand-in**: the capacity-modelled Spanner"
        + " instance of the fleet simulator, %s, sized from the old fleet's steady traffic to use "
        + "%d %% of it%s, answering in-memory deals; it is ample while each release's old fleet "
        + "fills its caches and sized one L2 TTL before the release. Time compressed %.0f×: TTLs, "
        + "half-life and waits are divided by %.0f while the request rate is not, so this fleet "
        + "of %,d lookups/s stands for one of %,.0f lookups/s in real time with the same hit "
        + "ratios within a TTL. %d repetitions of each strategy, run in a shuffled order (%s); "
        + "figures are the median [min–max]. Window: the first new pod → %.0f s later (%.0f s of "
        + "the practice), the same for every strategy. Whole part: %.0f s.%n%n",
        origin.describe(), ModelledDeals.STEADY_SHARE_PERCENT,
        p.nodes() > 0 ? " (nodes as given)" : "", p.timeFactor(), p.timeFactor(),
        p.lookupsPerSecond(), p.lookupsPerSecond() / p.timeFactor(), p.repetitions(),
        String.join(", ", played.order()), p.windowSeconds(), p.windowSeconds() * p.timeFactor(),
        played.seconds()));
    md.append(settings(p));
    md.append("| strategy | peak origin reads/s (1 s) | peak CPU asked of the origin | steady "
        + "reads/s | origin reads in window | release | DEADLINE_EXCEEDED calls | failed lookups "
        + "| lookups/s served | lookup p99 | L2 commands past their bound | gate (each run) |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    double window = p.windowSeconds();
    runs.forEach((strategy, list) -> md.append(String.format(Locale.ROOT,
        "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", strategy,
        range(list, ReleaseResult::peakPerSecond, "%,.0f"),
        range(list, r -> 100 * r.originLoad().peakCpu(), "%.0f %%"),
        range(list, ReleaseResult::steadyPerSecond, "%,.0f"),
        range(list, r -> r.originReads(), "%,.0f"),
        range(list, ReleaseResult::releaseSeconds, "%.1f s"),
        range(list, r -> r.originLoad().deadlineExceeded(), "%,.0f"),
        range(list, r -> r.failures(), "%,.0f"),
        range(list, r -> r.lookups() * (double) p.idsPerRequest() / window, "%,.0f"),
        range(list, ReleaseResult::p99Millis, "%.0f ms"),
        range(list, r -> r.l2PastBound(), "%,.0f"), gates(list))));
    double slowest = played.results().stream().mapToDouble(ReleaseResult::releaseSeconds).max()
        .orElse(0);
    md.append(String.format(Locale.ROOT, "%nThe slowest release ended %.1f s after its first new "
        + "pod; every window ends %.1f s after that (%s one L2 TTL, %.0f s).%n%n", slowest,
        window - slowest, window - slowest >= p.scaled(Practice.L2_TTL).toMillis() / 1000.0
            ? "at least" : "**less than**", p.scaled(Practice.L2_TTL).toMillis() / 1000.0));
    md.append(bars(p, runs, origin, summary));
    md.append(String.format(Locale.ROOT, "%nCharts (the median run of each strategy): origin "
        + "reads/s [%s](%s), CPU asked of the origin [%s](%s).%n%n", CHART, CHART, CPU_CHART,
        CPU_CHART));
    return md.toString();
  }

  private static String settings(ReleaseParams p) {
    return String.format(Locale.ROOT, "Settings that differ from the shipped defaults: time "
        + "compressed %.0f× (every duration of the policy and the agents divided by it, the lock "
        + "TTL capped at half the refresh-ahead window); `onTimeout: Promote` (so a gate that never"
        + " warms ends its run); `preloadRate` %,d ids/s (half the room between the steady load "
        + "and the 65 %% line; the policy's default is made for a real instance); `hotSetSize` %,d"
        + " (the default 10,000, or less where the validation of the CachePolicy requires that "
        + "minCoverage of it preload within half the compressed L2 TTL); agents record 1 "
        + "in %d lookups in the hot set (the compressed half-life sees fewer lookups). The L2 "
        + "budget is %d ms%s and the origin timeout the model's deadline, %d s (SpannerOrigin's "
        + "default).%n%n", p.timeFactor(), p.preloadRate(), p.hotSetSize(), p.hotSamplePeriod(),
        p.l2TimeoutMillis(), p.l2TimeoutMillis() == Practice.L2_TIMEOUT.toMillis()
            ? " (the agent's default)" : " (**not** the agent's default)",
        SpannerCapacity.Settings.DEFAULT_DEADLINE.toSeconds());
  }

  private static String bars(ReleaseParams p, Map<Strategy, List<ReleaseResult>> runs,
      SpannerCapacity.Settings origin, Summary summary) {
    List<ReleaseResult> a = runs.get(Strategy.ALL_AT_ONCE);
    List<ReleaseResult> e = runs.get(Strategy.PRELOAD);
    double aPeak = median(a, ReleaseResult::peakPerSecond);
    double aSteady = median(a, ReleaseResult::steadyPerSecond);
    double ePeak = median(e, ReleaseResult::peakPerSecond);
    double eSteady = median(e, ReleaseResult::steadyPerSecond);
    double eCpu = median(e, r -> r.originLoad().peakCpu());
    double eReads = median(e, r -> r.originReads());
    double aReads = median(a, r -> r.originReads());
    double eDeadline = e.stream().mapToLong(r -> r.originLoad().deadlineExceeded()).sum();
    double eFailed = e.stream().mapToLong(ReleaseResult::failures).sum();
    double eRelease = median(e, ReleaseResult::releaseSeconds) * p.timeFactor();
    double line = SpannerCapacity.RECOMMENDED_CPU_PERCENT / 100.0;
    StringBuilder md = new StringBuilder("Bars (on the medians):\n\n");
    md.append(bar(summary, "(a) shows the spike: peak ≥ " + fmt("%.0f", SPIKE_FACTOR)
        + " × steady origin reads/s", fmt("%,.0f ≥ %,.0f × %,.0f = %,.0f (%.1f×)", aPeak,
            SPIKE_FACTOR, aSteady, SPIKE_FACTOR * aSteady, aPeak / aSteady),
        aPeak >= SPIKE_FACTOR * aSteady));
    md.append(bar(summary, "(e) peak CPU asked of the origin ≤ the "
        + SpannerCapacity.RECOMMENDED_CPU_PERCENT + " % line", fmt("%.0f %%", 100 * eCpu),
        eCpu <= line));
    md.append(bar(summary, "(e) peak ≤ " + PRELOAD_PEAK_FACTOR + " × (steady + preloadRate)",
        fmt("%,.0f ≤ %,.0f", ePeak, PRELOAD_PEAK_FACTOR * (eSteady + p.preloadRate())),
        ePeak <= PRELOAD_PEAK_FACTOR * (eSteady + p.preloadRate())));
    md.append(bar(summary, "(e) origin reads ≤ " + READS_FACTOR + " × (a)'s",
        fmt("%,.0f ≤ %,.0f", eReads, READS_FACTOR * aReads), eReads <= READS_FACTOR * aReads));
    md.append(bar(summary, "(e) no DEADLINE_EXCEEDED, no failed lookup (all repetitions)",
        fmt("%,.0f calls, %,.0f lookups", eDeadline, eFailed), eDeadline == 0 && eFailed == 0));
    md.append(bar(summary, "(e) release ≤ 3 min in real time",
        fmt("%.0f s", eRelease), eRelease <= RELEASE_BAR_SECONDS));
    List<ReleaseResult> f = runs.get(Strategy.PRELOAD_BUDGET);
    if (f != null) {
      double fCpu = median(f, r -> r.originLoad().peakCpu());
      md.append(bar(summary, "(f) peak CPU asked of the origin ≤ the "
          + SpannerCapacity.RECOMMENDED_CPU_PERCENT + " % line, `originBudget` "
          + fmt("%,.0f", origin.recommendedLine()) + " reads/s", fmt("%.0f %%", 100 * fCpu),
          fCpu <= line));
    }
    md.append(String.format(Locale.ROOT, "%nThe origin: %s.%n", origin.describe()));
    return md.toString();
  }

  /** Each run's gate: its phase at release, after how long, at what coverage; – ungated. */
  private static String gates(List<ReleaseResult> runs) {
    List<String> gates = new ArrayList<>();
    for (ReleaseResult r : runs) {
      if (r.gateSeconds() != null) {
        gates.add(fmt("%s after %.1f s, coverage %s", r.gatePhase(), r.gateSeconds(),
            r.coverageAtRelease() == null ? "unknown" : fmt("%.1f %%", r.coverageAtRelease())));
      }
    }
    return gates.isEmpty() ? "–" : String.join("; ", gates);
  }

  private static String bar(Summary summary, String what, String measured, boolean met) {
    summary.add("release at production traffic (modelled origin, a stand-in): " + what, "–",
        measured, "as stated", met);
    return String.format(Locale.ROOT, "- %s: %s: %s.%n", what, measured, met ? "met"
        : "**missed**");
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  private static Map<Strategy, List<ReleaseResult>> byStrategy(List<ReleaseResult> results) {
    Map<Strategy, List<ReleaseResult>> runs = new EnumMap<>(Strategy.class);
    for (ReleaseResult r : results) {
      runs.computeIfAbsent(r.strategy(), s -> new ArrayList<>()).add(r);
    }
    return runs;
  }

  private static double median(List<ReleaseResult> runs, ToDoubleFunction<ReleaseResult> figure) {
    double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /** {@code median [min–max]}, or the one value of a single run. */
  private static String range(List<ReleaseResult> runs, ToDoubleFunction<ReleaseResult> figure,
      String format) {
    double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
    String median = fmt(format, median(runs, figure));
    return values.length == 1 ? median : median + " [" + fmt(format, values[0]) + "–"
        + fmt(format, values[values.length - 1]) + "]";
  }
}
