package io.warmgate.bench;

import java.io.IOException;
import java.nio.file.Files;
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
 * Runs the data-path benchmarks at 1, 2 and 16 caller threads and writes
 * {@code <out>/report.md} with ours beside the baseline of the same run, plus JMH's JSON per
 * thread count. Arguments: {@code [--quick] [--out DIR]}; {@code --quick} is a short smoke run
 * whose figures are not to be quoted.
 */
public final class BenchMain {

  private static final int[] THREADS = {1, 2, 16};

  /** One comparison: our benchmark method against the baseline method of the same class. */
  private record Pair(String benchmarkClass, String baseline, String ours, String bar, double maxRatio) {}

  private static final List<Pair> PAIRS = List.of(
      new Pair(L1HitBenchmark.class.getName(), "caffeineGetIfPresent", "warmgateGet",
          "L1 hit `get` vs Caffeine `getIfPresent`", 1.5),
      new Pair(L2HitBenchmark.class.getName(), "lettuceGet", "warmgateGet",
          "L2 hit (L1 miss) `get` vs Lettuce `GET` round trip", 1.3));

  private BenchMain() {}

  public static void main(String[] args) throws RunnerException, IOException {
    boolean quick = false;
    Path out = Path.of("target", "bench");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "': use [--quick] [--out DIR]");
      }
    }
    Files.createDirectories(out);
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
    String report = report(scores, quick);
    Files.writeString(out.resolve("report.md"), report);
    System.out.println(report);
  }

  private record Score(double value, double error, String unit, double bytesPerOp) {}

  private static String report(Map<String, Score> scores, boolean quick) {
    StringBuilder md = new StringBuilder("# warmgate data-path benchmarks\n\n");
    if (quick) {
      md.append("Quick smoke run (short iterations): the figures only show the benchmarks run.\n\n");
    }
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
        : "Over the bar: " + String.join("; ", missed) + "\n");
    return md.toString();
  }

  private static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }
}
