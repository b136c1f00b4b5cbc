package io.warmgate.bench.release;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.warmgate.bench.common.Summary;
import io.warmgate.operator.model.WarmupSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The release benchmark: a schema-changing release of a K-pod fleet under steady Zipf traffic,
 * played under each {@link Strategy} on the real Redis, Spanner emulator, kube-apiserver and
 * operator, and what each cost the origin. Writes {@code release.json} and the chart
 * {@code release-origin-reads.svg}, and returns the report's Markdown section.
 */
public final class ReleaseBench {

  /** The chart's file name, in the output directory (and copied to docs/ by hack/bench.sh). */
  public static final String CHART = "release-origin-reads.svg";

  static final double READS_BAR = 1.05;
  static final double WASTE_BAR = 0.10;
  static final double PEAK_STEADY_FACTOR = 1.1;
  static final double DURATION_FACTOR = 1.2;
  /**
   * A constant: the gate evaluates a held canary once a second, and the gate benchmark's bar for
   * criterion met → released is 1 s; together the most a release may add to the preload itself.
   */
  static final double GATE_REACTION_SECONDS = 2;

  private ReleaseBench() {}

  /**
   * Runs every strategy.
   *
   * @param overrides {@code name → value} pairs for {@link ReleaseParams#with}
   */
  public static String run(Path out, boolean quick, Map<String, String> overrides, Summary summary)
      throws IOException, InterruptedException {
    ReleaseParams params = with(quick ? ReleaseParams.quick() : ReleaseParams.full(), overrides);
    Played played = play(params);
    write(out, "release.json", played, CHART);
    summarize(played.params(), played.results(), summary);
    return markdown(played.params(), played.results(), played.seconds());
  }

  /**
   * Runs every strategy at production traffic against the modelled origin ({@link
   * ReleaseParams#scale()}), each {@link ReleaseParams#repetitions()} times in a shuffled order,
   * and writes {@code release-scale.json} and {@value ScaleReport#CHART}.
   *
   * @param overrides {@code name → value} pairs for {@link ReleaseParams#with}
   */
  public static String runAtScale(Path out, boolean quick, Map<String, String> overrides,
      Summary summary) throws IOException, InterruptedException {
    ReleaseParams params = with(quick ? ReleaseParams.scaleQuick() : ReleaseParams.scale(),
        overrides);
    Played played = play(params);
    write(out, "release-scale.json", played, ScaleReport.CHART);
    return ScaleReport.markdown(played, summary);
  }

  private static ReleaseParams with(ReleaseParams params, Map<String, String> overrides) {
    for (Map.Entry<String, String> o : overrides.entrySet()) {
      params = params.with(o.getKey(), o.getValue());
    }
    return params;
  }

  /**
   * What one part played: the parameters as settled (preload rate included), the modelled
   * origin's nodes (0 with the emulator), the order the runs went in, and their results.
   */
  record Played(ReleaseParams params, double nodes, List<String> order,
      List<ReleaseResult> results, double seconds) {}

  private static Played play(ReleaseParams params) throws InterruptedException {
    Duration l2Ttl = params.scaled(Practice.L2_TTL);
    Duration steady = l2Ttl.multipliedBy(2);
    Duration learn = params.scaled(Practice.HOT_HALF_LIFE).multipliedBy(
        (long) Math.ceil(params.learnHalfLives() * 1000)).dividedBy(1000);
    List<ReleaseResult> results = new ArrayList<>();
    List<String> order = new ArrayList<>();
    long start = System.nanoTime();
    double nodes = 0;
    try (ReleaseEnv env = ReleaseEnv.start(params)) {
      Learning.Steady learned = Learning.learn(env, params, learn.compareTo(steady) > 0 ? learn
          : steady, l2Ttl);
      if (env.modelled() != null) {
        nodes = params.nodes() > 0 ? params.nodes()
            : ModelledDeals.nodesFor(learned.queriesPerSecond(), learned.rowsPerSecond());
        if (params.preloadRate() == 0) {
          params = params.withPreloadRate(ModelledDeals.preloadRate(nodes));
        }
        params = params.withHotSetSize(Math.min(params.hotSetSize(),
            preloadableInL2Ttl(params.preloadRate(), l2Ttl)));
        System.err.printf(Locale.ROOT, "release: the old fleet's steady origin traffic %.1f "
            + "queries/s of %.0f ids/s; origin sized %.3f nodes; preloadRate %,d ids/s; hotSetSize "
            + "%,d%n", learned.queriesPerSecond(), learned.rowsPerSecond(), nodes,
            params.preloadRate(), params.hotSetSize());
      }
      List<Strategy> plays = new ArrayList<>();
      for (int rep = 0; rep < params.repetitions(); rep++) {
        plays.addAll(params.plays());
      }
      if (params.repetitions() > 1) {
        Collections.shuffle(plays, new Random(params.seed()));
      }
      Map<Strategy, Integer> repetition = new EnumMap<>(Strategy.class);
      for (Strategy strategy : plays) {
        int rep = repetition.merge(strategy, 1, Integer::sum) - 1;
        order.add(strategy.letter + (params.repetitions() > 1 ? String.valueOf(rep + 1) : ""));
        results.add(new ReleaseRun(env, params, strategy, rep, nodes).run(steady));
      }
    }
    return new Played(params, nodes, order, results, (System.nanoTime() - start) / 1e9);
  }

  /**
   * The largest hot set whose default {@code minCoverage} a Preload at {@code preloadRate} loads
   * within half of {@code l2Ttl}. The CachePolicy's validation requires the whole L2 TTL; at that
   * limit the first values expire as the last are written (the preload starts slower, at a tenth
   * of its rate), and coverage is never reached.
   */
  static int preloadableInL2Ttl(int preloadRate, Duration l2Ttl) {
    int minCoverage = new WarmupSpec().getMinCoverage();
    return (int) Math.max(1, (long) preloadRate * l2Ttl.toMillis() / 2 / 10L / minCoverage);
  }

  private static void write(Path out, String json, Played played, String chart)
      throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("params", played.params());
    doc.put("nodes", played.nodes());
    doc.put("order", played.order());
    doc.put("results", played.results());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve(json).toFile(), doc);
    List<ReleaseResult> shown = ScaleReport.medianRuns(played.results());
    Files.writeString(out.resolve(chart), ReleaseChart.svg(shown, played.params().describe()));
    if (played.nodes() > 0) {
      Files.writeString(out.resolve(ScaleReport.CPU_CHART), ReleaseChart.cpuSvg(shown,
          played.params().describe()));
    }
  }

  private static void summarize(ReleaseParams p, List<ReleaseResult> results, Summary summary) {
    ReleaseResult ours = results.stream().filter(r -> r.strategy() == Strategy.PRELOAD).findFirst()
        .orElseThrow();
    List<String> baselines = new ArrayList<>();
    List<String> durations = new ArrayList<>();
    for (ReleaseResult r : results) {
      String cell = String.format(Locale.ROOT, "(%s) %.2f, %.3f, peak %,.0f/s", r.strategy().letter,
          r.fillsPerUnionId(), r.newDuplicatesPerNewId(), r.peakPerSecond());
      String duration = String.format(Locale.ROOT, "(%s) %.1f s", r.strategy().letter,
          r.releaseSeconds());
      if (r != ours) {
        baselines.add(cell);
        durations.add(duration);
      }
    }
    summary.add(String.format(Locale.ROOT, "schema-changing release of %d pods under %,d requests/s of"
        + " %d ids (steady %.0f origin reads/s): fill reads per id requested ∪ preloaded in the "
        + "window; the new version's duplicate reads per id it requested ∪ preloaded; peak origin "
        + "reads/s (1-s buckets)", p.agents(), p.rate(), p.idsPerRequest(),
        ours.steadyPerSecond()),
        String.join("; ", baselines),
        String.format(Locale.ROOT, "(e) %.2f, %.3f, peak %,.0f/s; waste %.0f %% of %,d preloaded",
            ours.fillsPerUnionId(), ours.newDuplicatesPerNewId(), ours.peakPerSecond(),
            100 * ours.wasteShare(), ours.preloaded()),
        String.format(Locale.ROOT, "≤ %.2f per id; waste ≤ %.0f %%; peak ≤ %,.0f/s", READS_BAR,
            100 * WASTE_BAR, peakBar(p, ours)), ours.fillReads() <= READS_BAR * ours.union()
            && ours.wasteShare() <= WASTE_BAR && ours.peakPerSecond() <= peakBar(p, ours));
    summary.add(String.format(Locale.ROOT, "same release: first new pod → last old pod gone "
        + "(time compressed %.0f×)", p.timeFactor()), String.join("; ", durations),
        String.format(Locale.ROOT, "(e) %.1f s; %.1f s from the canary's agent registered",
            ours.releaseSeconds(), ours.releaseSeconds()
                - (ours.registeredSeconds() == null ? 0 : ours.registeredSeconds())),
        String.format(Locale.ROOT, "≤ %.1f s", durationBar(p, ours)),
        ours.releaseSeconds() <= durationBar(p, ours));
  }

  /** (e)'s peak bar: its preload on top of the steady rate, with a margin. */
  private static double peakBar(ReleaseParams p, ReleaseResult ours) {
    return p.preloadRate() + PEAK_STEADY_FACTOR * ours.steadyPerSecond();
  }

  /** (e)'s release bar: the preload at its rate, with a margin, and the gate's reaction. */
  private static double durationBar(ReleaseParams p, ReleaseResult ours) {
    return DURATION_FACTOR * ours.preloaded() / p.preloadRate() + GATE_REACTION_SECONDS;
  }

  private static String markdown(ReleaseParams p, List<ReleaseResult> results, double seconds) {
    StringBuilder md = new StringBuilder("## Release\n\n");
    md.append(p.describe()).append(String.format(Locale.ROOT, ". Real Redis, Spanner emulator, "
        + "kube-apiserver and warmgate operator; the benchmark writes the Rollout's status as the "
        + "Argo controller would. Practice durations divided by %.0f (constants, not measured): L1 "
        + "TTL %s, L2 TTL %s, hot-set half-life %s, fixed canary wait %s, maxWait %s (onTimeout "
        + "Promote). " + Learning.DESCRIPTION + " Window: first new pod → one L2"
        + " TTL after the last old pod left. Origin reads count ids. Whole part: %.0f s.%n%n",
        p.timeFactor(), human(p.scaled(Practice.L1_TTL)), human(p.scaled(Practice.L2_TTL)),
        human(p.scaled(Practice.HOT_HALF_LIFE)), human(p.scaled(Practice.FIXED_CANARY_WAIT)),
        human(p.scaled(Practice.MAX_WAIT)), p.learnHalfLives(), seconds));
    md.append("What each release cost the origin. Fill reads are origin reads less refresh-ahead "
        + "reloads (which keep hot keys in L2 with or without a release); the new version's own "
        + "cost divides its pods' fill reads by the ids its pods requested or had preloaded, the same "
        + "denominator in every row. Fill reads include an id read again after its value expired "
        + "in the window (the window outlasts one L2 TTL); duplicates are the new version's reads of "
        + "an id it had started reading less than an L2 TTL less the refresh-ahead window before, "
        + "which neither expiry nor refresh explains: 0 when each id was read once per TTL.\n\n");
    md.append("| strategy | origin reads in window: all (refresh-ahead) | ids requested ∪ preloaded "
        + "| fill reads per id (all reads per id) | new version: fill reads / ids it requested ∪ "
        + "preloaded | new version: duplicates / the same ids | preloaded | waste | recall "
        + "| steady reads/s | peak reads/s (1 s) |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ReleaseResult r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %,d (%,d) | %,d | **%.3f** (%.2f) | %,d / %,d = "
          + "**%.3f** | %,d / %,d = **%.3f** | %,d | %s | %s | %.1f | %,.0f |%n",
          r.strategy(), r.originReads(), r.refreshReads(), r.union(), r.fillsPerUnionId(),
          r.readsPerUnionId(), r.newPodReads() - r.newPodRefreshReads(), r.newUnion(),
          r.newFillsPerNewId(), r.newDuplicates(), r.newUnion(), r.newDuplicatesPerNewId(),
          r.preloaded(), r.preloaded() == 0 ? "–" : String.format(Locale.ROOT, "%,d (%.0f %%)",
              r.wasted(), 100 * r.wasteShare()),
          r.preloaded() == 0 ? "–" : String.format(Locale.ROOT, "%.0f %%", 100 * r.recall()),
          r.steadyPerSecond(), r.peakPerSecond()));
    }
    md.append("\nWhat each release cost in time. Request latency runs from a request's scheduled "
        + "arrival (queueing included); a mean origin call far above the steady one means the "
        + "release queued calls at the origin.\n\n");
    md.append("| strategy | requests | request p50 / p99 | mean origin call: steady → window "
        + "| release | release from the canary's agent registered | gate | failed |\n");
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n");
    for (ReleaseResult r : results) {
      md.append(String.format(Locale.ROOT, "| %s | %,d | %.1f / %.1f ms | %,.0f → %,.0f ms | %.1f s "
          + "| %s | %s | %,d |%n",
          r.strategy(), r.lookups(), r.p50Millis(), r.p99Millis(), r.steadyCallMillis(),
          r.windowCallMillis(), r.releaseSeconds(), r.registeredSeconds() == null ? "–"
              : String.format(Locale.ROOT, "%.1f s", r.releaseSeconds() - r.registeredSeconds()),
          gate(r), r.failures()));
    }
    for (ReleaseResult r : results) {
      if (!r.gateSteps().isEmpty()) {
        md.append(String.format(Locale.ROOT, "%n%s, steps as seen from outside every %d ms, after "
            + "the canary started: %s.", r.strategy(), GateSteps.POLL_MILLIS, steps(r)));
      }
    }
    md.append('\n');
    for (ReleaseResult r : results) {
      r.failureKinds().forEach((kind, count) -> md.append(String.format(Locale.ROOT,
          "%n%s failed %,d requests: %s", r.strategy(), count, kind)));
    }
    md.append(String.format(Locale.ROOT, "%nChart (origin reads/s, one line per strategy): [%s](%s).%n%n",
        CHART, CHART));
    ReleaseResult ours = results.stream().filter(r -> r.strategy() == Strategy.PRELOAD).findFirst()
        .orElseThrow();
    double readsBar = READS_BAR * ours.union();
    double peakBar = peakBar(p, ours);
    double durationBar = durationBar(p, ours);
    md.append("Bars for (e) warmgate Preload:\n\n");
    md.append(String.format(Locale.ROOT, "- fill reads (origin reads less refresh-ahead reloads, "
        + "which keep hot keys in L2 with or without a release) ≤ %.2f × ids requested ∪ preloaded: "
        + "%,d ≤ %,.0f: %s (all reads: %,d).%n", READS_BAR, ours.fillReads(), readsBar,
        met(ours.fillReads() <= readsBar), ours.originReads()));
    md.append(String.format(Locale.ROOT, "  The window outlasts one L2 TTL, so an id requested early "
        + "and again after its value expired is read twice by any cache; the new version's "
        + "duplicates, reads that neither expiry nor refresh explains, were %,d for %,d ids "
        + "(%.3f per id).%n", ours.newDuplicates(), ours.newUnion(), ours.newDuplicatesPerNewId()));
    md.append(String.format(Locale.ROOT, "- waste ≤ %.0f %% of the preloaded ids: %,d of %,d: %s.%n",
        100 * WASTE_BAR, ours.wasted(), ours.preloaded(), met(ours.wasteShare() <= WASTE_BAR)));
    md.append(String.format(Locale.ROOT, "- peak ≤ preloadRate + %.1f × steady rate = %,d + %.1f × "
        + "%.1f = %,.0f reads/s: %,.0f: %s.%n", PEAK_STEADY_FACTOR, p.preloadRate(),
        PEAK_STEADY_FACTOR, ours.steadyPerSecond(), peakBar, ours.peakPerSecond(),
        met(ours.peakPerSecond() <= peakBar)));
    md.append(String.format(Locale.ROOT, "- release ≤ %.1f × preloaded / preloadRate + %.0f s gate "
        + "reaction (a constant) = %.1f s: %.1f s: %s.%n%n", DURATION_FACTOR,
        GATE_REACTION_SECONDS, durationBar, ours.releaseSeconds(),
        met(ours.releaseSeconds() <= durationBar)));
    return md.toString();
  }

  private static String gate(ReleaseResult r) {
    if (r.gateSeconds() == null) {
      return "–";
    }
    return String.format(Locale.ROOT, "%s after %.1f s, coverage %s", r.gatePhase(), r.gateSeconds(),
        r.coverageAtRelease() == null ? "unknown" : String.format(Locale.ROOT, "%.1f %%",
            r.coverageAtRelease()));
  }

  private static String steps(ReleaseResult r) {
    StringBuilder out = new StringBuilder();
    r.gateSteps().forEach((step, at) -> out.append(out.isEmpty() ? "" : ", ")
        .append(String.format(Locale.ROOT, "%s +%.2f s", step, at)));
    return out.toString();
  }

  private static String met(boolean met) {
    return met ? "met" : "**missed**";
  }

  private static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }
}
