package io.warmgate.bench;

import io.warmgate.bench.common.Summary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH data-path benchmarks at 1, 2 and 16 caller threads and renders ours beside the
 * baseline of the same run, plus JMH's JSON per thread count; on one Redis server, or (the L2
 * benchmarks) on a Redis cluster.
 */
final class JmhBench {

  private static final int[] THREADS = {1, 2, 16};
  /**
   * The quick run's: it shows that the benchmarks run and report (the smoke test checks no
   * timing), and each further thread count would cost it half a minute.
   */
  private static final int[] QUICK_THREADS = {1};

  /**
   * One comparison: our benchmark method against the baseline method of the same class, with the
   * design's bars on the time ratio and, where one is set (not NaN), on the allocation ratio.
   */
  private record Pair(String benchmarkClass, String baseline, String ours, String bar, double maxRatio,
      double maxAllocRatio) {}

  private static final List<Pair> PAIRS = List.of(
      new Pair(L1HitBenchmark.class.getName(), "caffeineGetIfPresent", "warmgateGet",
          "L1 hit `get` vs Caffeine `getIfPresent`", 1.2, Double.NaN),
      new Pair(L2HitBenchmark.class.getName(), "lettuceGet", "warmgateGet",
          "L2 hit (L1 miss) `get` vs Lettuce `GET` round trip", 1.1, 2.0),
      new Pair(L2HitBenchmark.class.getName(), "lettuceGetAndDecode", "warmgateGet",
          "L2 hit (L1 miss) `get` vs Lettuce `GET` + envelope check + Smile decode", 1.1, 2.0));
  /** The L2 comparisons again on a Valkey cluster: the baseline is Lettuce's cluster client. */
  private static final List<Pair> CLUSTER_PAIRS = List.of(
      new Pair(L2HitBenchmark.class.getName(), "lettuceGet", "warmgateGet",
          "Cluster: L2 hit (L1 miss) `get` vs Lettuce cluster `GET` round trip", 1.1, 2.0),
      new Pair(L2HitBenchmark.class.getName(), "lettuceGetAndDecode", "warmgateGet",
          "Cluster: L2 hit (L1 miss) `get` vs Lettuce cluster `GET` + envelope check + Smile decode",
          1.1, 2.0));
  /** Forks of a full run: JMH's error needs several JVMs, each with its own JIT decisions. */
  static final int FORKS = 3;

  private JmhBench() {}

  /** Runs the benchmarks ({@code quick}: short iterations) and returns the Markdown section. */
  static String run(Path out, boolean quick, Summary summary) throws RunnerException {
    return run(out, quick, summary, false);
  }

  /**
   * Runs the L2 benchmarks on a Valkey cluster (three primaries, three replicas) against Lettuce's
   * cluster client, and returns their Markdown section.
   */
  static String runOnCluster(Path out, boolean quick, Summary summary) throws RunnerException {
    return run(out, quick, summary, true);
  }

  private static String run(Path out, boolean quick, Summary summary, boolean cluster)
      throws RunnerException {
    Map<String, Score> scores = new LinkedHashMap<>();
    for (int threads : quick ? QUICK_THREADS : THREADS) {
      ChainedOptionsBuilder options = new OptionsBuilder()
          .include(L2HitBenchmark.class.getSimpleName())
          .threads(threads)
          .forks(quick ? 1 : FORKS)
          .addProfiler(GCProfiler.class)
          .resultFormat(ResultFormatType.JSON)
          .result(out.resolve("jmh-" + (cluster ? "cluster-" : "") + "threads-" + threads
              + ".json").toString());
      if (cluster) {
        options.param("l2", L2HitBenchmark.CLUSTER);
      } else {
        options.include(L1HitBenchmark.class.getSimpleName());
      }
      if (quick) {
        options.warmupIterations(1).warmupTime(TimeValue.seconds(1))
            .measurementIterations(2).measurementTime(TimeValue.seconds(1));
      } else {
        options.warmupIterations(2).warmupTime(TimeValue.seconds(2))
            .measurementIterations(3).measurementTime(TimeValue.seconds(2));
      }
      for (RunResult result : new Runner(options.build()).run()) {
        String benchmark = result.getParams().getBenchmark();
        Result<?> primary = result.getPrimaryResult();
        Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
        scores.put(benchmark + "@" + threads, new Score(primary.getScore(), primary.getScoreError(),
            primary.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore()));
      }
    }
    List<Pair> pairs = cluster ? CLUSTER_PAIRS : PAIRS;
    summarize(pairs, scores, summary);
    return report(cluster ? "## Data path on a Valkey cluster (JMH)\n\nA Redis cluster of three "
        + "primaries with a replica each, on this machine; the baseline is Lettuce's cluster client "
        + "reading the same keys.\n\n" : "## Data path (JMH)\n\n", pairs, scores);
  }

  private record Score(double value, double error, String unit, double bytesPerOp) {}

  private static String report(String heading, List<Pair> pairs, Map<String, Score> scores) {
    StringBuilder md = new StringBuilder(heading);
    md.append("Average time per lookup (± JMH's 99.9 % error), same JVMs and run for both columns; "
        + "allocation per lookup from JMH's GC profiler.\n\n");
    md.append("| comparison | threads | baseline | ours | ratio | bar | baseline B/op | ours B/op "
        + "| alloc ratio (bar) |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    List<String> missed = new ArrayList<>();
    for (Pair pair : pairs) {
      for (int threads : THREADS) {
        Score base = scores.get(pair.benchmarkClass() + "." + pair.baseline() + "@" + threads);
        Score ours = scores.get(pair.benchmarkClass() + "." + pair.ours() + "@" + threads);
        if (base == null || ours == null) {
          continue;
        }
        double ratio = ours.value() / base.value();
        if (ratio > pair.maxRatio()) {
          missed.add(pair.bar() + " at " + threads + " threads: " + fmt(ratio) + "×");
        }
        double allocRatio = ours.bytesPerOp() / base.bytesPerOp();
        if (!Double.isNaN(pair.maxAllocRatio()) && !(allocRatio <= pair.maxAllocRatio())) {
          missed.add(pair.bar() + " allocation at " + threads + " threads: " + fmt(allocRatio) + "×");
        }
        md.append(String.format(Locale.ROOT, "| %s | %d | %s ± %s %s | %s ± %s %s | %s× | ≤ %s× | %s | %s | %s× (%s) |%n",
            pair.bar(), threads, fmt(base.value()), fmt(base.error()), base.unit(),
            fmt(ours.value()), fmt(ours.error()), ours.unit(), fmt(ratio), fmt(pair.maxRatio()),
            fmt(base.bytesPerOp()), fmt(ours.bytesPerOp()), fmt(allocRatio),
            Double.isNaN(pair.maxAllocRatio()) ? "none" : "≤ " + fmt(pair.maxAllocRatio()) + "×"));
      }
    }
    md.append('\n').append(missed.isEmpty() ? "Every ratio is within its bar.\n"
        : "Over the bar: " + String.join("; ", missed) + "\n").append('\n');
    md.append(allocationShares(scores));
    return md.toString();
  }

  /**
   * Where an L2 hit's allocation goes, from this run's figures at each thread count: the raw
   * {@code GET} only receives the reply's bytes, while a lookup must also decode the value into
   * the cached type, which the decoding baseline does too; what remains is the cache's own.
   */
  private static String allocationShares(Map<String, Score> scores) {
    String l2 = L2HitBenchmark.class.getName() + ".";
    List<String> rows = new ArrayList<>();
    for (int threads : THREADS) {
      Score raw = scores.get(l2 + "lettuceGet@" + threads);
      Score decoded = scores.get(l2 + "lettuceGetAndDecode@" + threads);
      Score ours = scores.get(l2 + "warmgateGet@" + threads);
      if (raw == null || decoded == null || ours == null) {
        continue;
      }
      rows.add(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s |", threads,
          fmt(raw.bytesPerOp()), fmt(decoded.bytesPerOp() - raw.bytesPerOp()),
          fmt(ours.bytesPerOp() - decoded.bytesPerOp()), fmt(ours.bytesPerOp())));
    }
    if (rows.isEmpty()) {
      return "";
    }
    return "Where an L2 hit's bytes per lookup go. The raw `GET` baseline only receives the reply; "
        + "a lookup also decodes the value into the cached type (strings, lists and timestamps of "
        + "the deal), as the decoding baseline does; the rest is the cache's own (key, envelope "
        + "check, lookup future, meters; negative when the cache allocated less than the decoding "
        + "baseline's separate calls). Decoding is most of the gap to the raw `GET`, and a cache "
        + "that returns values cannot skip it, so the allocation bar is judged against the "
        + "decoding baseline; against the raw `GET` it is reported, not met.\n\n"
        + "| threads | reply (raw `GET`) | + decoding the value | + the cache's own | L2 hit total |\n"
        + "| ---: | ---: | ---: | ---: | ---: |\n" + String.join("\n", rows) + "\n\n";
  }

  /** One row per comparison: every thread count's time, ratio and (where barred) allocation. */
  private static void summarize(List<Pair> pairs, Map<String, Score> scores, Summary summary) {
    for (Pair pair : pairs) {
      List<String> base = new ArrayList<>();
      List<String> ours = new ArrayList<>();
      List<String> ratios = new ArrayList<>();
      List<String> baseAlloc = new ArrayList<>();
      List<String> oursAlloc = new ArrayList<>();
      List<String> measured = new ArrayList<>();
      String unit = "";
      boolean met = true;
      for (int threads : THREADS) {
        Score b = scores.get(pair.benchmarkClass() + "." + pair.baseline() + "@" + threads);
        Score o = scores.get(pair.benchmarkClass() + "." + pair.ours() + "@" + threads);
        if (b == null || o == null) {
          continue;
        }
        met &= o.value() / b.value() <= pair.maxRatio() && (Double.isNaN(pair.maxAllocRatio())
            || o.bytesPerOp() / b.bytesPerOp() <= pair.maxAllocRatio());
        measured.add(Integer.toString(threads));
        unit = b.unit().replace("/op", "");
        base.add(fmt(b.value()) + " ± " + fmt(b.error()));
        ours.add(fmt(o.value()) + " ± " + fmt(o.error()));
        ratios.add(fmt(o.value() / b.value()) + "×");
        baseAlloc.add(fmt(b.bytesPerOp()));
        oursAlloc.add(fmt(o.bytesPerOp()));
      }
      if (base.isEmpty()) {
        continue;
      }
      boolean alloc = !Double.isNaN(pair.maxAllocRatio());
      String threads = String.join(" / ", measured);
      summary.add(pair.bar() + ", " + threads + " threads" + (alloc ? "; bytes per lookup" : ""),
          String.join(" / ", base) + " " + unit + (alloc ? "; " + String.join(" / ", baseAlloc) + " B" : ""),
          String.join(" / ", ours) + " " + unit + " (" + String.join(" / ", ratios) + ")"
              + (alloc ? "; " + String.join(" / ", oursAlloc) + " B" : ""),
          "≤ " + fmt(pair.maxRatio()) + "×" + (alloc ? ", ≤ " + fmt(pair.maxAllocRatio()) + "× bytes" : ""),
          met);
    }
  }

  private static String fmt(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }
}
