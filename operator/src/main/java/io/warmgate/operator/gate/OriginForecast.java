package io.warmgate.operator.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Predicts the origin read rate that releasing a held canary now would add: over the first
 * seconds, at its peak, and until the canary's key space is as warm as the stable one.
 *
 * <p>The model, and what it assumes:
 * <ul>
 *   <li><b>Releasing moves the rest of the traffic at once.</b> The share {@code s} of lookups
 *       still served by the stable pods ({@link Inputs#releasedShare}) moves to the canary's key
 *       space the moment the gate releases. Argo replaces pods step by step, so the real peak is
 *       at most this one: the forecast is an upper bound on that account.
 *   <li><b>One origin read per cold id and key space.</b> The fill lease makes the fleet read an
 *       id missing from L2 once, whatever the number of pods asking (the fleet benchmark's
 *       ≤ 1.02 reads per key). An id {@code i} requested at {@code r_i} lookups/s (its decayed
 *       count in {@code T:hot}, {@link HotSetForecast}), absent from the canary's key space, is
 *       first requested after release at time {@code t} with density {@code r_i e^(−r_i t)}
 *       (Poisson arrivals); the released share's part of that is {@code s r_i e^(−r_i t)}. The
 *       canary's own share of the traffic already reads those ids today, in the steady rate.
 *   <li><b>The hot set is probed, not read whole.</b> Each {@link Probe} stands for
 *       {@code weight} ids: the hottest ids are checked one by one (weight 1), the rest through a
 *       fixed random sample whose weight scales it to their number, an unbiased estimate of the
 *       sum over all of them.
 *   <li><b>The tail continues the hot set's power law.</b> Lookups of ids outside the probed
 *       hot set ({@code tail = max(0, requestRate − Σ weight × r_i)}) are of ids no agent tracks;
 *       {@link TailShape} gives them rates by continuing the hot set's own fall of rate with
 *       rank, until their rates add up to {@code tail}, and each is then a cold id as above. The
 *       new key space holds the share {@code q} of them its own pods' lookups have filled: the
 *       canary's hits that were not of present hot-set ids, over its tail lookups
 *       ({@code q = (canaryHitRatio − present/requestRate) ÷ (tail/requestRate)}, 0 before the
 *       canary has traffic), which grows the longer the canary serves. Without a shape (too
 *       few hot rates to fit) every tail lookup counts as a read of its own, constant until
 *       {@link Inputs#horizon}: the most they can cost. Preload does not lower this part.
 *   <li><b>The stable key space's reads end with its pods.</b> The origin serves
 *       {@link Inputs#steadyOriginRate} now (what the key spaces cost, preload excluded). The part
 *       of it the stable key space costs, {@link Inputs#leavingOriginRate}, is asked by the pods
 *       the release replaces only: their lookups drive its fills and refresh-ahead, so it stops
 *       when their traffic moves. The rest (other key spaces, the canary's own) stays. A stable
 *       key space that other workloads share keeps their part, which the forecast does not
 *       separate: it then predicts too little by that part.
 * </ul>
 * So {@code added(t) = s Σ_cold w_i r_i e^(−r_i t)} over the absent hot-set ids and the tail's
 * ids (weighted {@code 1 − q}) for {@code 0 ≤ t < H}, and the origin's rate right after the
 * release is {@code steady − leaving + added(0…1 s)}.
 * It only falls, so its peak is its mean over the first {@link #PEAK_RESOLUTION} (the resolution
 * an origin's read rate is watched at: a cold id looked up a thousand times a second is one read,
 * not a thousand reads/s), the first seconds are its mean over {@link #FIRST_SECONDS},
 * the extra reads its integral over {@code H}, and the key space counts as warm once
 * {@code added(t)} falls to {@link #WARM_SHARE} of the peak ({@code H} at the latest).
 *
 * <p>Pure: no I/O, no clock.
 */
public final class OriginForecast {

  /** The span the peak averages over: one second. */
  public static final Duration PEAK_RESOLUTION = Duration.ofSeconds(1);
  /** The span "the first seconds after release" averages over. */
  public static final Duration FIRST_SECONDS = Duration.ofSeconds(10);
  /** Share of the peak below which the new key space counts as warm as the old one. */
  public static final double WARM_SHARE = 0.1;
  /** Most ids named as dominating the forecast. */
  public static final int DOMINANT_IDS = 5;
  /** Longest id quoted as dominating the forecast; longer ones are cut. */
  static final int MAX_ID_CHARS = 64;

  private OriginForecast() {}

  /**
   * One probed id of the hot set.
   *
   * @param id the raw id
   * @param rate its lookups per second across the fleet, ≥ 0
   * @param present whether its value key exists in the canary's key space
   * @param weight how many hot-set ids it stands for (1 when checked one by one), ≥ 1
   */
  public record Probe(String id, double rate, boolean present, double weight) {
    public Probe {
      Objects.requireNonNull(id, "id");
      if (!(rate >= 0) || !(weight >= 1) || Double.isInfinite(rate) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("probe " + id + ": rate " + rate + " and weight "
            + weight + " must be finite, rate >= 0 and weight >= 1");
      }
    }
  }

  /**
   * What the forecast is made from.
   *
   * @param probes the probed hot-set ids
   * @param requestRate lookups per second of the whole fleet (every key space)
   * @param tailShape how rates fall past the hot set ({@link TailShape#of} of its rates); null
   *     when unknown: every tail lookup then counts as a read
   * @param canaryHitRatio share (0-1) of the canary key space's lookups answered by L1 or L2;
   *     null when the canary has served no lookups (read as a key space holding no tail id)
   * @param steadyOriginRate origin reads per second now, preload excluded
   * @param leavingOriginRate the part of {@code steadyOriginRate} the stable key space costs,
   *     which ends with the pods the release replaces; at most {@code steadyOriginRate}
   * @param releasedShare share (0-1) of the lookups still served by pods the release replaces
   * @param horizon how long a cold key space stays colder than the old one: the L2 TTL
   */
  public record Inputs(List<Probe> probes, double requestRate, TailShape tailShape,
      Double canaryHitRatio, double steadyOriginRate, double leavingOriginRate,
      double releasedShare, Duration horizon) {
    public Inputs {
      probes = List.copyOf(probes);
      Objects.requireNonNull(horizon, "horizon");
      if (horizon.isNegative() || horizon.isZero()) {
        throw new IllegalArgumentException("horizon must be positive: " + horizon);
      }
      if (!(leavingOriginRate >= 0) || leavingOriginRate > Math.max(0, steadyOriginRate)) {
        throw new IllegalArgumentException("leaving origin rate " + leavingOriginRate
            + " must be between 0 and the steady origin rate " + steadyOriginRate);
      }
    }
  }

  /** An id that dominates the forecast, and its lookups per second. */
  public record HotId(String id, double rate) {}

  /**
   * A forecast, or why there is none.
   *
   * @param steady origin reads per second now, preload excluded
   * @param leaving the part of {@code steady} that ends with the replaced pods
   * @param firstSeconds added origin reads per second, averaged over {@link #FIRST_SECONDS}
   * @param peak the largest added origin reads per second, over the first
   *     {@link #PEAK_RESOLUTION} after the release
   * @param tail the part of {@code peak} from ids outside the hot set (preload cannot lower it)
   * @param warmAfter how long after the release the added rate stays above
   *     {@link #WARM_SHARE} of the peak
   * @param extraReads origin reads the release adds until the horizon
   * @param releasedShare share (0-1) of the traffic the release moves
   * @param dominant the absent ids adding most, hottest first, at most {@link #DOMINANT_IDS}
   * @param unknown why nothing is forecast, or null when it is
   */
  public record Forecast(double steady, double leaving, double firstSeconds, double peak,
      double tail, Duration warmAfter, double extraReads, double releasedShare,
      List<HotId> dominant, String unknown) {

    public Forecast {
      dominant = List.copyOf(dominant);
    }

    /** No forecast, because of {@code why}. */
    public static Forecast unknown(String why) {
      return new Forecast(0, 0, 0, 0, 0, Duration.ZERO, 0, 0, List.of(), why);
    }

    /** Whether there is a forecast. */
    public boolean known() {
      return unknown == null;
    }

    /** What stays of the steady rate once the replaced pods' traffic has moved. */
    public double staying() {
      return Math.max(0, steady - leaving);
    }

    /**
     * The origin's predicted read rate right after a release now: what stays of the steady
     * rate, plus the peak.
     */
    public double total() {
      return staying() + peak;
    }

    /**
     * Such as {@code releasing now adds ~1,240 reads/s at its peak (~310 over the first 10 s,
     * 52 from ids outside the hot set) on top of 800 now (300 of them end with the replaced
     * pods), warm after 1m 4s, 9,100 extra reads}; the reason when unknown.
     */
    public String describe() {
      if (!known()) {
        return "no origin forecast: " + unknown;
      }
      String ending = leaving > 0
          ? String.format(Locale.ROOT, " (%,.0f of them end with the replaced pods)", leaving)
          : "";
      return String.format(Locale.ROOT, "releasing now adds ~%,.0f reads/s at its peak (~%,.0f "
          + "over the first %d s, %,.0f from ids outside the hot set) on top of %,.0f now%s, "
          + "warm after %s, %,.0f extra reads", peak, firstSeconds, FIRST_SECONDS.toSeconds(),
          tail, steady, ending, GateDecision.seconds(warmAfter), extraReads);
    }
  }

  /** Ids of one lookup rate the canary's key space lacks: probed, or of the tail. */
  private record Cold(double rate, double ids) {}

  /** The forecast from {@code in}. */
  public static Forecast of(Inputs in) {
    double s = clamp(in.releasedShare());
    double horizon = in.horizon().toMillis() / 1000.0;
    double first = FIRST_SECONDS.toSeconds();
    double second = PEAK_RESOLUTION.toSeconds();
    double probed = 0;
    double presentRate = 0;
    List<Probe> missing = new ArrayList<>();
    for (Probe p : in.probes()) {
      probed += p.weight() * p.rate();
      if (p.present()) {
        presentRate += p.weight() * p.rate();
      } else if (p.rate() > 0) {
        missing.add(p);
      }
    }
    double tailRate = Math.max(0, in.requestRate() - probed);
    double cold = 1 - filledTailShare(in.canaryHitRatio(), presentRate, tailRate,
        in.requestRate());
    List<Cold> hot = missing.stream().map(p -> new Cold(p.rate(), p.weight())).toList();
    List<Cold> tailIds = new ArrayList<>();
    // Tail lookups no shape accounts for: each a read of its own, as long as the horizon.
    double unexplained = tailRate;
    if (in.tailShape() != null) {
      TailShape.Ids ids = in.tailShape().ids(tailRate);
      ids.blocks().forEach(b -> tailIds.add(new Cold(b.rate(), b.ids() * cold)));
      unexplained = ids.unexplained();
    }
    double constant = s * unexplained * cold;
    double tail = s * firstReads(tailIds, second) + constant;
    double peak = s * firstReads(hot, second) + tail;
    double firstSeconds = s * (firstReads(hot, first) + firstReads(tailIds, first)) / first
        + constant;
    double extra = s * (firstReads(hot, horizon) + firstReads(tailIds, horizon))
        + constant * horizon;
    List<Cold> all = new ArrayList<>(hot);
    all.addAll(tailIds);
    Duration warmAfter = warmAfter(all, s, constant, peak, horizon);
    List<HotId> dominant = missing.stream()
        .sorted(Comparator.comparingDouble(Probe::rate).reversed().thenComparing(Probe::id))
        .limit(DOMINANT_IDS).map(p -> new HotId(bounded(p.id()), p.rate())).toList();
    return new Forecast(Math.max(0, in.steadyOriginRate()), in.leavingOriginRate(), firstSeconds,
        peak, tail, warmAfter, extra, s, dominant, null);
  }

  /** Ids of {@code cold} first looked up within {@code seconds}: Σ ids (1 − e^(−r·seconds)). */
  private static double firstReads(List<Cold> cold, double seconds) {
    double sum = 0;
    for (Cold c : cold) {
      sum += c.ids() * -Math.expm1(-c.rate() * seconds);
    }
    return sum;
  }

  /**
   * The first time the added rate is at most {@link #WARM_SHARE} of {@code peak}: the part of
   * cold ids decreases with time, so a bisection finds it; {@code horizon} when the constant
   * part alone exceeds that share.
   */
  private static Duration warmAfter(List<Cold> cold, double s, double constant, double peak,
      double horizon) {
    double bar = WARM_SHARE * peak;
    if (peak == 0) {
      return Duration.ZERO;
    }
    if (constant > bar) {
      return Duration.ofMillis(Math.round(horizon * 1000));
    }
    double lo = 0;
    double hi = horizon;
    if (added(cold, s, hi) + constant > bar) {
      return Duration.ofMillis(Math.round(horizon * 1000));
    }
    for (int i = 0; i < 60 && hi - lo > 0.01; i++) {
      double mid = (lo + hi) / 2;
      if (added(cold, s, mid) + constant > bar) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return Duration.ofMillis(Math.round(hi * 1000));
  }

  /**
   * {@code q}: the share of tail lookups whose id the canary's key space already holds, from
   * the canary's hit ratio less its lookups of present hot-set ids; 0 without canary traffic.
   */
  private static double filledTailShare(Double canaryHitRatio, double presentRate,
      double tailRate, double requestRate) {
    if (canaryHitRatio == null || tailRate <= 0 || requestRate <= 0) {
      return 0;
    }
    double tailHits = clamp(canaryHitRatio) - presentRate / requestRate;
    return Math.max(0, Math.min(1, tailHits / (tailRate / requestRate)));
  }

  /** The added rate of first lookups of {@code cold} ids at {@code t} seconds after release. */
  private static double added(List<Cold> cold, double s, double t) {
    double sum = 0;
    for (Cold c : cold) {
      sum += c.ids() * c.rate() * Math.exp(-c.rate() * t);
    }
    return s * sum;
  }

  private static double clamp(double share) {
    return Double.isNaN(share) ? 1 : Math.max(0, Math.min(1, share));
  }

  private static String bounded(String id) {
    return id.length() <= MAX_ID_CHARS ? id : id.substring(0, MAX_ID_CHARS) + "...";
  }
}
