package io.warmgate.sim.fleet;

import io.warmgate.operator.gate.OriginForecast;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Plays the release benchmark's five strategies and (f), the gate with an origin budget, on a simulated fleet in virtual time: the old
 * version serves in its steady state, then each strategy replaces it, and every strategy is
 * measured over one window, from the first new pod to one L2 TTL after the slowest strategy's
 * last step. Deterministic given the parameters' seed.
 *
 * <p>The origin and the fleet answer each other in time order: the reads of each
 * {@value #TICK} s tick are offered to the {@link SpannerCapacity} model together, and what it
 * answers (late, refused, or after a latency) decides each read's outcome and so the next reads.
 */
public final class Simulation {

  static final double TICK = 0.1;
  /** Seconds of the timeline shown before the release. */
  static final int LEAD_SHOWN = 60;

  /**
   * One simulation: its settings, the origin it sized, what it derived and what each strategy
   * cost.
   *
   * @param steadyEstimate the old fleet's expected origin reads/s in steady state (analytic),
   *     which sized the origin
   * @param l1SteadyHitRatio the share of a long-running pod's lookups its L1 answers
   * @param podWarmSeconds how long a cold pod takes to reach 95 % of that share, (b)'s wait
   * @param hotSetText how the gate chose the hot set
   * @param forecastChecks the operator's forecast at each release beside what it measured
   * @param windowSeconds the common window: first new pod → its end
   * @param seconds how long the simulation took, wall clock
   */
  public record Run(SimParams params, SpannerCapacity.Settings origin, double steadyEstimate,
      double l1SteadyHitRatio, double podWarmSeconds, String hotSetText,
      double distinctPerL2Ttl, List<SimResult> results, List<ForecastCheck> forecastChecks,
      double windowSeconds, double seconds) {

    public SimResult result(Strategy s) {
      return results.stream().filter(r -> r.strategy() == s).findFirst().orElseThrow();
    }
  }

  private final SimParams p;
  private final Consumer<String> log;
  private final Popularity popularity;
  private final L1Model l1;
  private final double from = -2 * SimParams.L2_TTL;
  private SpannerCapacity.Settings origin;

  private Simulation(SimParams p, Consumer<String> log) {
    this.p = p;
    this.log = log;
    this.popularity = new Popularity(p.ids(), p.skew(), p.lookupsPerSecond());
    this.l1 = new L1Model(popularity, p.pods(), SimParams.L1_TTL);
  }

  /** Runs every strategy under {@code p}, saying what it does through {@code log}. */
  public static Run run(SimParams p, Consumer<String> log) {
    return new Simulation(p, log).run();
  }

  private Run run() {
    long start = System.nanoTime();
    double steady = steadyEstimate();
    double nodes = p.nodes() > 0 ? p.nodes() : size(steady);
    origin = SpannerCapacity.Settings.of(nodes);
    log.accept(String.format(java.util.Locale.ROOT, "Zipf s=%.2f: steady ≈ %,.0f reads/s, origin "
        + "%s", p.skew(), steady, origin.describe()));
    double warm = l1.warmAge(0.95, SimParams.POD_WARM_CAP);
    Ranked ranked = learnHotSet();

    Map<Strategy, double[][]> steps = new EnumMap<>(Strategy.class);
    Map<Strategy, Double> release = new EnumMap<>(Strategy.class);
    Map<Strategy, HotSet> hotSets = new EnumMap<>(Strategy.class);
    Map<Strategy, SimResult.GateOutcome> gates = new EnumMap<>(Strategy.class);
    steps.put(Strategy.ALL_AT_ONCE, new double[][] {{0, p.pods()}});
    release.put(Strategy.ALL_AT_ONCE, 0.0);
    double[][] oneByOne = new double[p.pods()][];
    for (int j = 0; j < p.pods(); j++) {
      oneByOne[j] = new double[] {j * warm, j + 1};
    }
    steps.put(Strategy.ONE_BY_ONE, oneByOne);
    release.put(Strategy.ONE_BY_ONE, p.pods() * warm);
    steps.put(Strategy.FIXED_WAIT, new double[][] {{0, 1}, {SimParams.FIXED_CANARY_WAIT,
        p.pods()}});
    release.put(Strategy.FIXED_WAIT, SimParams.FIXED_CANARY_WAIT);
    String hotSetText = null;
    int budget = (int) Math.floor(origin.recommendedLine());
    Map<Strategy, OriginForecast.Forecast> forecasts = new EnumMap<>(Strategy.class);
    for (Strategy s : List.of(Strategy.ORGANIC, Strategy.PRELOAD, Strategy.ORIGIN_BUDGET)) {
      GatePlay play = new GatePlay(p, s == Strategy.ORGANIC ? WarmupMode.Organic
          : WarmupMode.Preload, s == Strategy.ORIGIN_BUDGET ? budget : null);
      SimulatedGate gate = play.gate();
      HotSet hot = ranked.choose(gate);
      hotSetText = hot.text;
      if (s != Strategy.ORGANIC) {
        OriginForecast.Forecast atStart = play.forecast(gate, hot, never(hot), 0,
            new GatePlay.Traffic(t -> steady, t -> steady, t -> null),
            (p.pods() - 1.0) / p.pods());
        double opens = play.warmJobOpens(gate, atStart);
        if (!Double.isNaN(opens)) {
          Double ceiling = gate.preloadCeiling(atStart);
          double rate = Math.max(1, ceiling == null ? p.preloadRate() : ceiling);
          hot.preload(opens + SimParams.POLL_INTERVAL,
              (int) Math.max(1, Math.min(SimParams.MAX_PRELOAD_BATCH, rate)), rate);
        }
      }
      double horizon = SimParams.MAX_WAIT + 5;
      Schedule canaryOnly = new Schedule(from, new double[][] {{0, 1}}, p.pods());
      ReleasePass.Tally before = play(canaryOnly, hot, horizon, origin);
      GatePlay.Traffic traffic = new GatePlay.Traffic(t -> steadyBefore(before, t),
          t -> oldBefore(before, t), t -> canaryHitRatio(before, t));
      SimResult.GateOutcome outcome = play.release(gate, hot, before.presentAt, hotShare(hot),
          traffic);
      log.accept(String.format(java.util.Locale.ROOT, "%s: gate %s after %.0f s at coverage "
          + "%.1f %% of %,d ids; %s", s, outcome.phase(), outcome.releasedAt(),
          outcome.coverage(), hot.size(), outcome.forecast().describe()));
      steps.put(s, new double[][] {{0, 1}, {outcome.releasedAt(), p.pods()}});
      release.put(s, outcome.releasedAt());
      hotSets.put(s, hot);
      gates.put(s, outcome);
      forecasts.put(s, outcome.forecast());
      if (s == Strategy.ORGANIC) {
        // (a) and (c) are not gated; the operator forecasts them all the same, (a) before any
        // new pod (every lookup moves), (c) when its fixed wait ends, from what the canary's
        // own traffic filled (the same as (d)'s canary until then).
        forecasts.put(Strategy.ALL_AT_ONCE, play.forecast(gate, hot, never(hot), 0, traffic, 1));
        forecasts.put(Strategy.FIXED_WAIT, play.forecast(gate, hot, before.presentAt,
            SimParams.FIXED_CANARY_WAIT, traffic, (p.pods() - 1.0) / p.pods()));
      }
    }
    double slowest = release.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
    double end = slowest + SimParams.L2_TTL;
    List<SimResult> results = new ArrayList<>();
    for (Strategy s : Strategy.values()) {
      Schedule schedule = new Schedule(from, steps.get(s), p.pods());
      ReleasePass.Tally t = play(schedule, hotSets.get(s), end, origin);
      results.add(measure(s, t, release.get(s), gates.get(s)));
      log.accept(String.format(java.util.Locale.ROOT, "%s: peak %,d reads/s", s,
          results.get(results.size() - 1).peakPerSecond()));
    }
    List<ForecastCheck> checks = new ArrayList<>();
    SpannerCapacity.Settings ample = SpannerCapacity.Settings.of(AMPLE * origin.nodes());
    for (Map.Entry<Strategy, OriginForecast.Forecast> f : forecasts.entrySet()) {
      Strategy s = f.getKey();
      double at = release.get(s);
      Schedule schedule = new Schedule(from, steps.get(s), p.pods());
      ReleasePass.Tally t = play(schedule, hotSets.get(s), at + CHECKED_SECONDS, ample);
      checks.add(check(s, at, f.getValue(), t));
      log.accept(String.format(java.util.Locale.ROOT, "%s: forecast %,.0f reads/s after the "
          + "release, measured %,d on an ample origin", s, f.getValue().total(),
          checks.get(checks.size() - 1).measuredPeak()));
    }
    return new Run(p, origin, steady, l1.steadyHitRatio(), warm, hotSetText,
        distinctWithin(SimParams.L2_TTL), results, checks, end,
        (System.nanoTime() - start) / 1e9);
  }

  /** Seconds of the agents' statistics the operator reads: six complete 10-second buckets. */
  static final int STATS_WINDOW = 60;
  /** How many times the origin's nodes the forecast's check plays against: nothing queues. */
  static final double AMPLE = 100;
  /** Seconds after a release the check looks for the peak in. */
  static final double CHECKED_SECONDS = 60;

  /**
   * The forecast made at a release beside what the origin then served, on an ample origin: the
   * forecast predicts demand, which an overloaded origin would cut to what it lets through.
   *
   * @param releasedAt seconds after the first new pod
   * @param measuredPeak the most origin reads of one second within {@link #CHECKED_SECONDS}
   *     after the release, preload excluded
   */
  public record ForecastCheck(Strategy strategy, double releasedAt,
      OriginForecast.Forecast forecast, long measuredPeak) {

    /** (forecast − measured) ÷ measured, of the origin's rate right after the release. */
    public double error() {
      return measuredPeak == 0 ? Double.NaN
          : (forecast.total() - measuredPeak) / (double) measuredPeak;
    }
  }

  private ForecastCheck check(Strategy s, double at, OriginForecast.Forecast f,
      ReleasePass.Tally t) {
    int first = (int) Math.round(at - from);
    long peak = 0;
    for (int k = first; k < first + CHECKED_SECONDS && k < t.reads.length; k++) {
      peak = Math.max(peak, t.reads[k] - t.preloadReads[k]);
    }
    return new ForecastCheck(s, at, f, peak);
  }

  /**
   * Origin reads per second over the minute before {@code at} (seconds after the first new pod),
   * preload excluded, as the operator reads the agents' statistics.
   */
  private double steadyBefore(ReleasePass.Tally t, double at) {
    return perSecondBefore(t.reads, t.preloadReads, at);
  }

  /** The old key space's origin reads per second over the minute before {@code at}. */
  private double oldBefore(ReleasePass.Tally t, double at) {
    return perSecondBefore(t.reads, t.newReads, at);
  }

  /**
   * The canary's hit ratio over the minute before {@code at}, as its agent counts it: its
   * lookups less its misses, a miss being each of the new key space's origin reads except the
   * warm job's (refresh-ahead renewals counted as misses too: a slight underestimate); null
   * within the canary's first minute.
   */
  private Double canaryHitRatio(ReleasePass.Tally t, double at) {
    if (at < STATS_WINDOW) {
      return null;
    }
    double lookups = p.lookupsPerSecond() / p.pods();
    double misses = perSecondBefore(t.newReads, t.preloadReads, at);
    return Math.max(0, 1 - misses / lookups);
  }

  /** Presence times for a hot set none of whose ids the canary's key space holds. */
  private static double[] never(HotSet hot) {
    double[] never = new double[hot.size()];
    Arrays.fill(never, Double.POSITIVE_INFINITY);
    return never;
  }

  /** The mean of {@code counts − less} per second over the minute before {@code at}. */
  private double perSecondBefore(long[] counts, long[] less, double at) {
    int end = (int) Math.round(at - from);
    long sum = 0;
    for (int k = end - STATS_WINDOW; k < end; k++) {
      sum += counts[k] - less[k];
    }
    return (double) sum / STATS_WINDOW;
  }

  private ReleasePass.Tally play(Schedule schedule, HotSet hot, double end,
      SpannerCapacity.Settings origin) {
    return new ReleasePass(popularity, l1, schedule, hot, origin, from, end, TICK, p.seed()).run();
  }

  private SimResult measure(Strategy s, ReleasePass.Tally t, double release,
      SimResult.GateOutcome gate) {
    int zero = (int) -from;
    int ttl = (int) SimParams.L2_TTL;
    long before = 0;
    for (int k = zero - ttl; k < zero; k++) {
      before += t.reads[k];
    }
    long peak = 0;
    int peakAt = 0;
    long total = 0;
    for (int k = zero; k < t.reads.length; k++) {
      total += t.reads[k];
      if (t.reads[k] > peak) {
        peak = t.reads[k];
        peakAt = k;
      }
    }
    int perSecond = (int) Math.round(1 / TICK);
    double peakCpu = 0;
    long deadline = 0;
    long exhausted = 0;
    for (int k = zero * perSecond; k < t.queries.length; k++) {
      deadline += Math.round(t.deadlineShare[k] * t.queries[k]);
      exhausted += Math.round(t.exhaustedShare[k] * t.queries[k]);
    }
    double worst = 0;
    for (int k = zero * perSecond; k < t.latency.length; k++) {
      if (t.queries[k] > 0) {
        worst = Math.max(worst, t.latency[k]);
      }
    }
    for (int sec = zero; sec < t.reads.length; sec++) {
      double busy = 0;
      for (int k = sec * perSecond; k < (sec + 1) * perSecond && k < t.queries.length; k++) {
        busy += t.utilisation[k];
      }
      peakCpu = Math.max(peakCpu, busy / perSecond);
    }
    long[] timeline = Arrays.copyOfRange(t.reads, zero - LEAD_SHOWN, t.reads.length);
    return new SimResult(s, (double) before / ttl, peak, peakAt - zero, peakCpu, total,
        t.newFills, t.newDistinct, Arrays.stream(t.preloadReads).sum(), release, deadline, exhausted,
        Math.round(t.lookupsDeadline), Math.round(t.lookupsExhausted), timeline, LEAD_SHOWN, gate,
        worst, t.newOutside[peakAt]);
  }

  /** The old fleet's expected origin reads/s: one per id per renewal cycle. */
  private double steadyEstimate() {
    double renewAfter = SimParams.L2_TTL - SimParams.REFRESH_AHEAD;
    double sum = 0;
    for (int i = 1; i <= popularity.ids(); i++) {
      sum += 1 / (renewAfter + 1 / l1.l2Rate(popularity.rate(i)));
    }
    return sum;
  }

  /** Expected distinct ids the fleet requests within {@code seconds}. */
  private double distinctWithin(double seconds) {
    double sum = 0;
    for (int i = 1; i <= popularity.ids(); i++) {
      sum += -Math.expm1(-popularity.rate(i) * seconds);
    }
    return sum;
  }

  /**
   * The smallest instance whose capacity is at least three times {@code steady}: 100 processing
   * units at a time below one node, whole nodes above, as Spanner sizes instances.
   */
  static double size(double steady) {
    double needed = 3 * steady / SpannerCapacity.SINGLE_ROW_READS_PER_NODE;
    if (needed <= 1) {
      return Math.max(0.1, Math.ceil(needed * 10 - 1e-9) / 10);
    }
    return Math.ceil(needed - 1e-9);
  }

  private double hotShare(HotSet hot) {
    double in = 0;
    for (int id : hot.ids) {
      in += popularity.rate(id);
    }
    return in / p.lookupsPerSecond();
  }

  /** The tracked ids, hottest first, with the scores the agents' sampling gave them. */
  private record Ranked(List<String> ids, double[] scores, SimParams p) {
    HotSet choose(SimulatedGate gate) {
      List<String> chosen = gate.chooseHotSet(ids, scores,
          GatePlay.ZERO.minusSeconds((long) p.learnSeconds()), GatePlay.ZERO,
          Duration.ofSeconds((long) SimParams.HALF_LIFE), SimParams.SAMPLE_PERIOD, GatePlay.ZERO);
      return new HotSet(chosen, gate.hotSetText());
    }
  }

  /**
   * Scores as the agents record them after {@code learnSeconds} of steady traffic: one lookup in
   * {@link SimParams#SAMPLE_PERIOD} sampled, forward-decayed with the half-life, scores taken at
   * the landmark. Sampling noise is drawn (normal for large counts, Poisson for small ones);
   * only ids that can rank in the hot set are drawn (three times its size).
   */
  private Ranked learnHotSet() {
    int candidates = Math.min(p.ids(), 3 * p.hotSetSize());
    double h = SimParams.HALF_LIFE;
    double ln2 = Math.log(2);
    double exposure = h / ln2 * -Math.expm1(-p.learnSeconds() * ln2 / h);
    double square = h / (2 * ln2) * -Math.expm1(-2 * p.learnSeconds() * ln2 / h);
    Random random = new Random(p.seed());
    double[] score = new double[candidates];
    Integer[] order = new Integer[candidates];
    for (int i = 1; i <= candidates; i++) {
      double sampled = popularity.rate(i) / SimParams.SAMPLE_PERIOD;
      double mean = sampled * exposure;
      double count = mean >= 30
          ? Math.max(0, mean + Math.sqrt(sampled * square) * random.nextGaussian())
          : poisson(mean, random);
      score[i - 1] = SimParams.SAMPLE_PERIOD * count;
      order[i - 1] = i;
    }
    Arrays.sort(order, (a, b) -> Double.compare(score[b - 1], score[a - 1]));
    int top = Math.min(candidates, p.hotSetSize());
    List<String> ids = new ArrayList<>(top);
    double[] scores = new double[top];
    for (int j = 0; j < top; j++) {
      ids.add(String.valueOf(order[j]));
      scores[j] = score[order[j] - 1];
    }
    return new Ranked(ids, scores, p);
  }

  private static double poisson(double mean, Random random) {
    double limit = Math.exp(-mean);
    double product = random.nextDouble();
    int n = 0;
    while (product > limit) {
      product *= random.nextDouble();
      n++;
    }
    return n;
  }
}
