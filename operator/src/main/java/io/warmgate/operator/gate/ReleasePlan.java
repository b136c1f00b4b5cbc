package io.warmgate.operator.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a schema-changing release of a whole fleet would cost the origin if it began now, with
 * each release strategy, and the warmup settings that keep it under a budget: what {@code kubectl
 * warmgate plan} prints before a release.
 *
 * <p>Each row is an {@link OriginForecast} of the moment its strategy moves traffic to the new,
 * cold key space, from the fleet's hot set and traffic as they are now:
 * <ul>
 *   <li>(a) every pod at once, no gate: all traffic moves, nothing is in the new key space;
 *   <li>(b) one pod at a time: the first pod's step, {@code 1/pods} of the traffic and of the
 *       stable key space's reads; later steps find the ids earlier pods filled, so they add less;
 *   <li>(e) warmgate Preload as the policy stands: one canary pod, held until the policy's hot set
 *       ({@code hotSetSize}, cut to the ids expected to be read within {@code l2Ttl}) is preloaded
 *       at {@code preloadRate}, then the other {@code (pods − 1)/pods} of the traffic moves;
 *   <li>(f) warmgate Preload under a budget: as (e), with the smallest hot set whose release fits
 *       under the budget and the preload's rate capped at the budget less the steady rate, as the
 *       gate caps it.
 * </ul>
 * A canary step that fills the key space from its own traffic for a while (strategies (c) and (d)
 * of the fleet simulator) depends on how long it runs and is not forecast here: the rows count
 * none of the canary's own fills, an upper bound for (e) and (f) on that account.
 *
 * <p>Pure: no I/O, no clock.
 */
public final class ReleasePlan {

  /**
   * maxWait recommended as this many times the predicted hold (a constant of the plan), so that a
   * preload slowed to half its rate by the origin's latency still completes.
   */
  static final double MAX_WAIT_MARGIN = 2;
  /** The shortest maxWait recommended. */
  static final Duration MIN_MAX_WAIT = Duration.ofMinutes(1);

  private ReleasePlan() {}

  /**
   * What the plan is made from.
   *
   * @param ids the hot set's ids, hottest first: the tracked ids expected to be read within
   *     {@code l2Ttl} ({@link HotSetForecast})
   * @param rates their lookups per second across the fleet, in the order of {@code ids}
   * @param requestRate lookups per second of the fleet (every key space)
   * @param steadyOriginRate origin reads per second now
   * @param leavingOriginRate the part of {@code steadyOriginRate} the key spaces the release
   *     replaces cost
   * @param pods the fleet's live agents
   * @param budget origin reads per second the release may use in all, or null when none is known
   * @param hotSetSize the policy's {@code warmup.hotSetSize}
   * @param preloadRate the policy's {@code warmup.preloadRate}, ids per second
   * @param l2Ttl the policy's {@code l2Ttl}: how long a cold key space stays colder
   */
  public record Inputs(List<String> ids, List<Double> rates, double requestRate,
      double steadyOriginRate, double leavingOriginRate, int pods, Integer budget,
      int hotSetSize, int preloadRate, Duration l2Ttl) {
    public Inputs {
      ids = List.copyOf(ids);
      rates = List.copyOf(rates);
      Objects.requireNonNull(l2Ttl, "l2Ttl");
      if (ids.size() != rates.size()) {
        throw new IllegalArgumentException(rates.size() + " rates for " + ids.size() + " ids");
      }
      if (pods < 1) {
        throw new IllegalArgumentException("a plan needs at least one pod, not " + pods);
      }
      if (budget != null && budget < 1) {
        throw new IllegalArgumentException("budget " + budget + " must be at least 1 read/s");
      }
      if (hotSetSize < 1 || preloadRate < 1) {
        throw new IllegalArgumentException("hotSetSize " + hotSetSize + " and preloadRate "
            + preloadRate + " must be at least 1");
      }
      leavingOriginRate = Math.max(0, Math.min(leavingOriginRate, steadyOriginRate));
    }

    /** What stays of the steady origin rate once the release has moved all traffic. */
    double staying() {
      return Math.max(0, steadyOriginRate - leavingOriginRate);
    }
  }

  /**
   * One strategy's release.
   *
   * @param letter the strategy's letter, as the fleet simulator names it
   * @param strategy what the strategy does, with its settings
   * @param forecast the origin's added reads at the moment traffic moves
   * @param preloaded ids preloaded before that moment
   * @param preloadRate ids per second they are preloaded at; 0 without a preload
   * @param hold how long the canary is held for the preload before the release
   */
  public record Row(String letter, String strategy, OriginForecast.Forecast forecast,
      int preloaded, double preloadRate, Duration hold) {

    /** The origin's read rate right after the move: what stays of the steady rate, and the peak. */
    public double originAtPeak() {
      return forecast.total();
    }
  }

  /**
   * The warmup settings to use.
   *
   * @param hotSetSize ids to preload
   * @param originBudget the budget the plan was made for, or the least one a Preload release of
   *     the whole hot set fits under when none was given
   * @param budgetGiven whether {@code originBudget} is the one given
   * @param fits whether a Preload release fits under {@code originBudget}
   * @param maxWait how long to let the gate hold the canary
   * @param hold how long the preload is predicted to hold it
   */
  public record Settings(int hotSetSize, long originBudget, boolean budgetGiven, boolean fits,
      Duration maxWait, Duration hold) {}

  /**
   * A plan, or why there is none.
   *
   * @param rows one per strategy; empty with a problem
   * @param settings the settings to use; null with a problem
   * @param inputs what it was made from; null when nothing could be read
   * @param problem why nothing could be planned, or null
   */
  public record Plan(Inputs inputs, List<Row> rows, Settings settings, String problem) {
    public Plan {
      rows = List.copyOf(rows);
    }

    /** No plan, because of {@code why}. */
    public static Plan none(String why) {
      return new Plan(null, List.of(), null, why);
    }
  }

  /** The plan from {@code in}. */
  public static Plan of(Inputs in) {
    if (in.ids().isEmpty() || in.rates().stream().noneMatch(r -> r > 0)) {
      return new Plan(in, List.of(), null, "the hot set has no request rates: no agent has "
          + "recorded lookups within the hot set's half-life (or the agents are of a version "
          + "that does not write T:hot:meta); plan while the fleet serves traffic");
    }
    if (in.budget() != null && in.budget() <= in.steadyOriginRate()) {
      return new Plan(in, List.of(), null, String.format(Locale.ROOT,
          "the budget of %,d reads/s is not above the %,.0f reads/s the origin serves now: no "
          + "release and no preload fits under it; raise it", in.budget(),
          in.steadyOriginRate()));
    }
    int size = in.ids().size();
    // Fitted once: every row and every step of the bisection forecasts the same fleet.
    TailShape shape = TailShape.of(in.rates());
    double canaryShare = in.pods() == 1 ? 1 : (in.pods() - 1) / (double) in.pods();
    List<Row> rows = new ArrayList<>();
    rows.add(new Row("a", "every pod at once, no gate",
        forecast(in, shape, 0, 1, in.leavingOriginRate()), 0, 0, Duration.ZERO));
    rows.add(new Row("b", String.format(Locale.ROOT,
        "one pod at a time (the first of %d steps)", in.pods()),
        forecast(in, shape, 0, 1.0 / in.pods(), in.leavingOriginRate() / in.pods()), 0, 0,
        Duration.ZERO));
    int policySet = Math.min(in.hotSetSize(), size);
    double policyRate = preloadRate(in);
    rows.add(new Row("e", String.format(Locale.ROOT,
        "warmgate Preload, hotSetSize %,d: %,d ids at %,.0f ids/s", in.hotSetSize(), policySet,
        policyRate),
        forecast(in, shape, policySet, canaryShare, in.leavingOriginRate()), policySet,
        policyRate,
        hold(policySet, policyRate)));

    int chosen = size;
    boolean fits;
    long budget;
    if (in.budget() != null) {
      budget = in.budget();
      chosen = smallestFitting(in, shape, canaryShare);
      fits = chosen >= 0;
      chosen = fits ? chosen : size;
      rows.add(new Row("f", String.format(Locale.ROOT,
          "warmgate Preload under originBudget %,d: %,d ids at %,.0f ids/s", budget,
          chosen, policyRate), forecast(in, shape, chosen, canaryShare, in.leavingOriginRate()),
          chosen, policyRate, hold(chosen, policyRate)));
    } else {
      budget = (long) Math.ceil(
          forecast(in, shape, size, canaryShare, in.leavingOriginRate()).total());
      fits = true;
    }
    Duration hold = hold(chosen, policyRate);
    return new Plan(in, rows, new Settings(Math.max(1, chosen), budget, in.budget() != null,
        fits, maxWait(hold), hold), null);
  }

  /**
   * The smallest number of hottest ids whose preload brings a Preload release under the budget,
   * or −1 when even the whole hot set leaves it over (the ids outside the hot set alone exceed
   * it). The peak only falls as more ids are preloaded, so a bisection finds it.
   */
  static int smallestFitting(Inputs in, TailShape shape, double canaryShare) {
    int size = in.ids().size();
    if (!fits(in, shape, size, canaryShare)) {
      return -1;
    }
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (fits(in, shape, mid, canaryShare)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private static boolean fits(Inputs in, TailShape shape, int preloaded,
      double canaryShare) {
    return forecast(in, shape, preloaded, canaryShare, in.leavingOriginRate()).total()
        <= in.budget();
  }

  /** Ids per second the preload runs at: preloadRate, capped by the budget less the steady rate. */
  static double preloadRate(Inputs in) {
    return in.budget() == null ? in.preloadRate()
        : Math.min(in.preloadRate(), in.budget() - in.steadyOriginRate());
  }

  /**
   * The forecast of moving {@code share} of the traffic to a key space holding the
   * {@code preloaded} hottest ids, while {@code leaving} of the steady rate ends; {@code shape}
   * is the tail fitted to {@code in}'s rates.
   */
  static OriginForecast.Forecast forecast(Inputs in, TailShape shape, int preloaded,
      double share, double leaving) {
    List<OriginForecast.Probe> probes = new ArrayList<>(in.ids().size());
    for (int i = 0; i < in.ids().size(); i++) {
      probes.add(new OriginForecast.Probe(in.ids().get(i), Math.max(0, in.rates().get(i)),
          i < preloaded, 1));
    }
    return OriginForecast.of(new OriginForecast.Inputs(probes, in.requestRate(),
        shape, null, in.steadyOriginRate(), leaving, share, in.l2Ttl()));
  }

  private static Duration hold(int ids, double rate) {
    return ids == 0 ? Duration.ZERO : Duration.ofMillis(Math.round(ids / rate * 1000));
  }

  /** {@link #MAX_WAIT_MARGIN} times the hold, in whole minutes, at least {@link #MIN_MAX_WAIT}. */
  static Duration maxWait(Duration hold) {
    long minutes = (long) Math.ceil(hold.toMillis() * MAX_WAIT_MARGIN / 60_000.0);
    Duration wait = Duration.ofMinutes(minutes);
    return wait.compareTo(MIN_MAX_WAIT) < 0 ? MIN_MAX_WAIT : wait;
  }
}
