package io.warmgate.bench.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.warmgate.bench.common.Summary;
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

  private static final double COLD_START_BAR = 1.02;
  private static final double STAMPEDE_BAR = 1.05;
  /** The worker uncapped against the origin's own uncapped batched rate. */
  private static final double PRELOAD_SHARE_BAR = 0.8;

  private FleetBench() {}

  /**
   * Runs every fleet benchmark.
   *
   * @param overrides {@code name → value} pairs for {@link FleetParams#with}
   */
  public static Report run(Path out, boolean quick, Map<String, String> overrides, Summary summary)
      throws IOException, InterruptedException {
    FleetParams params = params(quick, overrides);
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
    coldStart(md, params, coldStart, summary, false);
    stampede(md, params, stampede, summary);
    preload(md, preload, summary);
    return new Report(md.toString(), preload.get(0).idsPerSecond());
  }

  /**
   * The fleet cold start with a Redis cluster (three primaries, a replica each) as L2, and its
   * Markdown section; the fleet's other benchmarks do not depend on how L2 is organised.
   */
  public static String runOnCluster(Path out, boolean quick, Map<String, String> overrides,
      Summary summary) throws IOException, InterruptedException {
    FleetParams params = params(quick, overrides);
    List<ColdStartBench.Result> coldStart;
    try (FleetFixture fixture = new FleetFixture(params.deals(), true)) {
      coldStart = ColdStartBench.run(fixture, params);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("params", params);
    json.put("coldStart", coldStart);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("fleet-cluster.json").toFile(), json);
    StringBuilder md = new StringBuilder();
    coldStart(md, params, coldStart, summary, true);
    return md.toString();
  }

  private static FleetParams params(boolean quick, Map<String, String> overrides) {
    FleetParams params = quick ? FleetParams.quick() : FleetParams.full();
    for (Map.Entry<String, String> o : overrides.entrySet()) {
      params = params.with(o.getKey(), o.getValue());
    }
    return params;
  }

  private static void coldStart(StringBuilder md, FleetParams p, List<ColdStartBench.Result> results,
      Summary summary, boolean onCluster) {
    md.append(onCluster ? "## Fleet cold start on a Valkey cluster\n\n" : "## Fleet cold start\n\n")
        .append(p.describe()).append(onCluster ? ", a real Redis cluster of three primaries with a "
            + "replica each and the Spanner emulator" : ", real Redis and Spanner emulator")
        .append(". Origin ids as counted by the loaders / as seen on the wire to the emulator. "
        + "Every row divides origin ids by the distinct ids of the trace.\n\n");
    md.append("| fleet | lookups | distinct ids in trace | origin queries | origin ids (loader / wire) "
        + "| distinct ids read | reads per requested distinct id | bar ≤ " + COLD_START_BAR
        + " | mean origin call | L2 errors | failed | time | request p99 |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (ColdStartBench.Result r : results) {
      String bar = !r.mode().leased() ? "baseline"
          : r.readsPerDistinctKey() <= COLD_START_BAR ? "met" : "missed";
      md.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d / %,d%s | %,d | **%.3f** | %s | %.0f ms | %d | %d | %.1f s | %.0f ms |%n",
          r.mode().label, r.lookups(), r.traceDistinct(), r.originCalls(), r.originIds(), r.wireIds(),
          r.countsAgree() ? "" : " ⚠", r.originDistinct(), r.readsPerDistinctKey(), bar,
          r.originMillis(), r.l2Errors(), r.failures(), r.seconds(), r.p99Millis()));
    }
    md.append("\nWithout the fill lease, a repeated read is two pods missing the same key while the"
        + " first pod's load is still in flight (the window is one origin call, its mean is in the "
        + "table). With it, the second pod waits for the first pod's value in L2 while the first pod"
        + " reads, up to the fill wait (the origin's timeout, " + FleetAgent.ORIGIN_TIMEOUT.toSeconds()
        + " s here). The slow-origin rows use a stand-in: each origin call sleeps 3 s or 12 s before"
        + " its real read; their agents serve " + ColdStartBench.SLOW_CALLERS + " requests at once"
        + " with as many loader threads.\n");
    ColdStartBench.Result lease = row(results, ColdStartBench.Mode.L1_L2_LEASE);
    ColdStartBench.Result slow3 = row(results, ColdStartBench.Mode.L1_L2_LEASE_SLOW_3S);
    ColdStartBench.Result slow12 = row(results, ColdStartBench.Mode.L1_L2_LEASE_SLOW_12S);
    md.append(String.format(Locale.ROOT, "%nBar: shared L2 with the fill lease ≤ %.2f reads per "
        + "requested distinct id: %s; origin calls of 3 s: %s; of 12 s: %s.%s%n%n", COLD_START_BAR,
        verdict(lease.readsPerDistinctKey() <= COLD_START_BAR, lease.readsPerDistinctKey()),
        verdict(slow3.readsPerDistinctKey() <= COLD_START_BAR, slow3.readsPerDistinctKey()),
        verdict(slow12.readsPerDistinctKey() <= COLD_START_BAR, slow12.readsPerDistinctKey()),
        results.stream().allMatch(ColdStartBench.Result::countsAgree) ? " Loader and wire counts agree."
            : " ⚠ loader and wire counts differ (client retries or extra queries)."));
    ColdStartBench.Result alone = row(results, ColdStartBench.Mode.L1_ONLY);
    ColdStartBench.Result noLease = row(results, ColdStartBench.Mode.L1_L2);
    summary.add(String.format(Locale.ROOT, "%s%d fresh pods replay one Zipf trace (%,d deals, s = %.1f):"
        + " origin reads per requested distinct id; request p99", onCluster ? "Cluster: " : "",
        p.agents(), p.deals(), p.skew()),
        String.format(Locale.ROOT, "%.2f (L1 only); %.3f, p99 %.0f ms (shared L2, no lease)",
            alone.readsPerDistinctKey(), noLease.readsPerDistinctKey(), noLease.p99Millis()),
        String.format(Locale.ROOT, "%.3f, p99 %.0f ms (fill lease)", lease.readsPerDistinctKey(),
            lease.p99Millis()),
        String.format(Locale.ROOT, "≤ %.2f", COLD_START_BAR),
        lease.readsPerDistinctKey() <= COLD_START_BAR);
    summary.add(String.format(Locale.ROOT, "%sthe same cold fleet, origin calls of 3 s and of 12 s "
        + "(slow origin stand-in): origin reads per requested distinct id", onCluster ? "Cluster: " : ""),
        String.format(Locale.ROOT, "%.3f (3 s); %.3f (12 s), no fill lease",
            row(results, ColdStartBench.Mode.L1_L2_SLOW_3S).readsPerDistinctKey(),
            row(results, ColdStartBench.Mode.L1_L2_SLOW_12S).readsPerDistinctKey()),
        String.format(Locale.ROOT, "%.3f (3 s); %.3f (12 s)", slow3.readsPerDistinctKey(),
            slow12.readsPerDistinctKey()),
        String.format(Locale.ROOT, "≤ %.2f", COLD_START_BAR),
        slow3.readsPerDistinctKey() <= COLD_START_BAR
            && slow12.readsPerDistinctKey() <= COLD_START_BAR);
  }

  private static ColdStartBench.Result row(List<ColdStartBench.Result> results,
      ColdStartBench.Mode mode) {
    return results.stream().filter(r -> r.mode() == mode).findFirst().orElseThrow();
  }

  private static void stampede(StringBuilder md, FleetParams p, List<StampedeBench.Result> results,
      Summary summary) {
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
    md.append(String.format(Locale.ROOT, "%nBar: with the lock ≤ %.2f: %s.%n%n", STAMPEDE_BAR,
        verdict(ours.reloadsPerKeyPerCycle() <= STAMPEDE_BAR, ours.reloadsPerKeyPerCycle())));
    summary.add(String.format(Locale.ROOT, "%d pods across %d L2 TTL cycles: origin reloads per key "
        + "per cycle", p.agents(), p.stampedeCycles()),
        String.format(Locale.ROOT, "%.2f (refresh-ahead off, no fill lease)",
            results.get(0).reloadsPerKeyPerCycle()),
        String.format(Locale.ROOT, "%.2f (refresh under the lock)", ours.reloadsPerKeyPerCycle()),
        String.format(Locale.ROOT, "≤ %.2f", STAMPEDE_BAR),
        ours.reloadsPerKeyPerCycle() <= STAMPEDE_BAR);
  }

  private static void preload(StringBuilder md, List<PreloadBench.Row> rows, Summary summary) {
    md.append("## Preload\n\nThe same emulator and deals; each way starts from an empty L2.\n\n");
    md.append("| way | ids | time | ids/s |\n| --- | ---: | ---: | ---: |\n");
    for (PreloadBench.Row r : rows) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %.2f s | **%.1f** |%n", r.way(), r.ids(),
          r.seconds(), r.idsPerSecond()));
    }
    double capped = rows.get(0).idsPerSecond();
    double uncapped = rows.get(1).idsPerSecond();
    double perKey = rows.get(2).idsPerSecond();
    double rawCapped = rows.get(3).idsPerSecond();
    double rawUncapped = rows.get(4).idsPerSecond();
    double share = uncapped / rawUncapped;
    md.append(String.format(Locale.ROOT, "%nAt the default cap (%d ids/s) the worker reads %.0f ids/s "
        + "against %.0f for raw batched reads paced the same way (%.0f %%). Uncapped it reads %.0f ids/s,"
        + " %.0f %% of the emulator's raw ceiling of %.0f (bar ≥ %.0f %%): %s; one `get` per key reads"
        + " %.1f ids/s.%n%n", Preloader.RATE, capped, rawCapped, 100 * capped / rawCapped, uncapped,
        100 * share, rawUncapped, 100 * PRELOAD_SHARE_BAR, share >= PRELOAD_SHARE_BAR ? "met" : "missed",
        perKey));
    summary.add("filling a namespace: ids/s at the default cap (" + Preloader.RATE + ") and uncapped",
        String.format(Locale.ROOT, "raw batched reads %.0f / %.0f; one `get` per key %.1f", rawCapped,
            rawUncapped, perKey),
        String.format(Locale.ROOT, "preload worker %.0f / %.0f (%.0f %% of raw uncapped)", capped,
            uncapped, 100 * share),
        String.format(Locale.ROOT, "≥ %.0f %% of raw uncapped", 100 * PRELOAD_SHARE_BAR),
        share >= PRELOAD_SHARE_BAR);
  }

  private static String verdict(boolean met, double value) {
    return String.format(Locale.ROOT, "%s (%.2f)", met ? "met" : "missed", value);
  }
}
