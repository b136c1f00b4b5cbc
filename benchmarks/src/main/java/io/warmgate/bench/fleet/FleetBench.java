package io.warmgate.bench.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the fleet benchmarks (cold start, expiry stampede, preload) on one Redis and one seeded
 * emulator and renders them as a Markdown section, baseline and warmgate side by side, plus
 * {@code fleet.json}.
 */
public final class FleetBench {

  /**
   * The rendered section and the preload worker's measured rate under the policy's default cap,
   * the rate a default CachePolicy warms at (an input of the gate's release-time table).
   */
  public record Report(String markdown, double preloadIdsPerSecond) {}

  private static final double COLD_START_BAR = 1.05;
  private static final double STAMPEDE_BAR = 1.1;
  private static final double PRELOAD_BAR = 10;

  private FleetBench() {}

  /**
   * Runs every fleet benchmark.
   *
   * @param overrides {@code name → value} pairs for {@link FleetParams#with}
   */
  public static Report run(Path out, boolean quick, Map<String, String> overrides)
      throws IOException, InterruptedException {
    FleetParams params = quick ? FleetParams.quick() : FleetParams.full();
    for (Map.Entry<String, String> o : overrides.entrySet()) {
      params = params.with(o.getKey(), o.getValue());
    }
    List<ColdStartBench.Result> coldStart;
    List<StampedeBench.Result> stampede;
    List<PreloadBench.Row> preload;
    try (FleetFixture fixture = new FleetFixture(params.deals())) {
      coldStart = ColdStartBench.run(fixture, params);
      stampede = StampedeBench.run(fixture, params);
      preload = PreloadBench.run(fixture, params);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("params", params);
    json.put("coldStart", coldStart);
    json.put("stampede", stampede);
    json.put("preload", preload);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("fleet.json").toFile(), json);
    StringBuilder md = new StringBuilder();
    coldStart(md, params, coldStart);
    stampede(md, params, stampede);
    preload(md, preload);
    return new Report(md.toString(), preload.get(0).idsPerSecond());
  }

  private static void coldStart(StringBuilder md, FleetParams p, List<ColdStartBench.Result> results) {
    md.append("## Fleet cold start\n\n").append(p.describe()).append(", real Redis and Spanner "
        + "emulator. Origin ids as counted by the loaders / as seen on the wire to the emulator.\n\n");
    md.append("| fleet | lookups | distinct ids in trace | origin queries | origin ids (loader / wire) "
        + "| of which preload | distinct ids read | reads per distinct key | mean origin call | L2 errors | failed "
        + "| time |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ColdStartBench.Result r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d / %,d%s | %,d | %,d | **%.2f** | %.0f ms | %d | %d | %.1f s |%n",
          r.mode().label, r.lookups(), r.traceDistinct(), r.originCalls(), r.originIds(), r.wireIds(),
          r.countsAgree() ? "" : " ⚠", r.preloadIds(), r.originDistinct(), r.readsPerDistinctKey(), r.originMillis(), r.l2Errors(),
          r.failures(), r.seconds() + r.preloadSeconds()));
    }
    md.append("\nA repeated read is two pods missing the same key while the first pod's load is still"
        + " in flight: an L2 miss takes no cross-pod lock, by design, so the window is one origin call"
        + " (its mean is in the table).\n");
    ColdStartBench.Result ours = results.get(results.size() - 1);
    md.append(String.format(Locale.ROOT, "%nBar: warmgate ≤ %.2f reads per distinct key: %s.%s%n%n",
        COLD_START_BAR, verdict(ours.readsPerDistinctKey() <= COLD_START_BAR, ours.readsPerDistinctKey()),
        results.stream().allMatch(ColdStartBench.Result::countsAgree) ? " Loader and wire counts agree."
            : " ⚠ loader and wire counts differ (client retries or extra queries)."));
  }

  private static void stampede(StringBuilder md, FleetParams p, List<StampedeBench.Result> results) {
    md.append("## Expiry stampede\n\n").append(String.format(Locale.ROOT, "K=%d agents read the same %d "
        + "keys at every step of a hand-moved clock (61 s a step, L1 60 s, L2 240 s, refresh-ahead 60 s)"
        + " for %d L2 TTL cycles. A cycle is a renewal observed in L2.%n%n", p.agents(),
        p.stampedeKeys(), p.stampedeCycles()));
    md.append("| fleet | steps | origin ids (loader / wire) | renewals | reloads per key per cycle | L2 errors | failed |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (StampedeBench.Result r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %d | %,d / %,d | %,d | **%.2f** | %d | %d |%n",
          r.mode().label, r.steps(), r.originIds(), r.wireIds(), r.renewals(),
          r.reloadsPerKeyPerCycle(), r.l2Errors(), r.failures()));
    }
    StampedeBench.Result ours = results.get(results.size() - 1);
    md.append(String.format(Locale.ROOT, "%nBar: with the lock ≤ %.1f: %s.%n%n", STAMPEDE_BAR,
        verdict(ours.reloadsPerKeyPerCycle() <= STAMPEDE_BAR, ours.reloadsPerKeyPerCycle())));
  }

  private static void preload(StringBuilder md, List<PreloadBench.Row> rows) {
    md.append("## Preload\n\nThe same emulator and deals; each way starts from an empty L2.\n\n");
    md.append("| way | ids | time | ids/s |\n| --- | ---: | ---: | ---: |\n");
    for (PreloadBench.Row r : rows) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %.2f s | **%.1f** |%n", r.way(), r.ids(),
          r.seconds(), r.idsPerSecond()));
    }
    double uncapped = rows.get(1).idsPerSecond();
    double ratio = uncapped / rows.get(2).idsPerSecond();
    md.append(String.format(Locale.ROOT, "%nPreload (uncapped) vs one get per key: %.0f× (bar ≥ %.0f×): %s."
        + " Under the default cap (%d ids/s, paced per batch) the worker ran at %.0f ids/s.%n%n", ratio, PRELOAD_BAR,
        ratio >= PRELOAD_BAR ? "met" : "missed", Preloader.RATE, rows.get(0).idsPerSecond()));
  }

  private static String verdict(boolean met, double value) {
    return String.format(Locale.ROOT, "%s (%.2f)", met ? "met" : "missed", value);
  }
}
