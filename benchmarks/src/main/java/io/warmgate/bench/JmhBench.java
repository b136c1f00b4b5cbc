package io.warmgate.bench;

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
 * baseline of the same run, plus JMH's JSON per thread count.
 */
final class JmhBench {

  private static final int[] THREADS = {1, 2, 16};

  /** One comparison: our benchmark method against the baseline method of the same class. */
  private record Pair(String benchmarkClass, String baseline, String ours, String bar, double maxRatio) {}

  private static final List<Pair> PAIRS = List.of(
      new Pair(L1HitBenchmark.class.getName(), "caffeineGetIfPresent", "warmgateGet",
          "L1 hit `get` vs Caffeine `getIfPresent`", 1.5),
      new Pair(L2HitBenchmark.class.getName(), "lettuceGet", "warmgateGet",
          "L2 hit (L1 miss) `get` vs Lettuce `GET` round trip", 1.3));

  private JmhBench() {}

  /** Runs the benchmarks ({@code quick}: short iterations) and returns the Markdown section. */
  static String run(Path out, boolean quick) throws RunnerException {
    Map<String, Score> scores = new LinkedHashMap<>();
    for (int threads : THREADS) {
      ChainedOptionsBuilder options = new OptionsBuilder()
          .include(L1HitBenchmark.class.getSimpleName())
          .include(L2HitBenchmark.class.getSimpleName())
          .threads(threads)
          .forks(1)
          .addProfiler(GCProfiler.class)
          .resultFormat(ResultFormatType.JSON)
          .result(out.resolve("jmh-threads-" + threads + ".json").toString());
      if (quick) {
        options.warmupIterations(1).warmupTime(TimeValue.seconds(1))
            .measurementIterations(2).measurementTime(TimeValue.seconds(1));
      } else {
        options.warmupIterations(3).warmupTime(TimeValue.seconds(3))
            .measurementIterations(5).measurementTime(TimeValue.seconds(3));
      }
      for (RunResult result : new Runner(options.build()).run()) {
        String benchmark = result.getParams().getBenchmark();
        Result<?> primary = result.getPrimaryResult();
        Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
        scores.put(benchmark + "@" + threads, new Score(primary.getScore(), primary.getScoreError(),
            primary.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore()));
      }
    }
    return report(scores);
  }

  private record Score(double value, double error, String unit, double bytesPerOp) {}

  private static String report(Map<String, Score> scores) {
    StringBuilder md = new StringBuilder("## Data path (JMH)\n\n");
    md.append("Average time per lookup, same JVM and run for both columns; allocation from JMH's GC profiler.\n\n");
    md.append("| comparison | threads | baseline | ours | ratio | bar | baseline B/op | ours B/op |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    List<String> missed = new ArrayList<>();
    for (Pair pair : PAIRS) {
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
        md.append(String.format(Locale.ROOT, "| %s | %d | %s ± %s %s | %s ± %s %s | %s× | ≤ %s× | %s | %s |%n",
            pair.bar(), threads, fmt(base.value()), fmt(base.error()), base.unit(),
            fmt(ours.value()), fmt(ours.error()), ours.unit(), fmt(ratio), fmt(pair.maxRatio()),
            fmt(base.bytesPerOp()), fmt(ours.bytesPerOp())));
      }
    }
    md.append('\n').append(missed.isEmpty() ? "Every ratio is within its bar.\n"
        : "Over the bar: " + String.join("; ", missed) + "\n").append('\n');
    return md.toString();
  }

  private static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }
}
