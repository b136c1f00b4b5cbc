package io.warmgate.operator.gate;

import io.lettuce.core.ScoredValue;
import io.warmgate.contract.valkey.ControlKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Picks the hot set the gate warms and measures: the hottest tracked ids that are expected to be
 * requested within a window (the policy's {@code l2Ttl}, the life of a preloaded value), so that
 * the tail of ids that would expire unread is neither preloaded nor waited for.
 *
 * <p>The agents' scores use forward decay (docs/valkey-layout.md): {@code C = score ×
 * 2^(−(now − landmark) / h)} is the exponentially decayed count of lookups of an id at {@code now},
 * and for a steady rate {@code r} observed for {@code T = now − since}, {@code C ≈ r × E} with
 * {@code E = (h / ln 2)(1 − 2^(−T / h))}. An id is then expected {@code λ = r × W} times in the
 * window {@code W}, and is not requested at all with probability {@code e^(−λ)} (Poisson). The
 * cut is the longest prefix of the ranked ids whose mean of those probabilities, the share of the
 * prefix a preload would load in vain, is at most {@link #MAX_WASTE}. λ falls with rank, so the
 * mean only grows along the prefix.
 *
 * <p>The rate is estimated as {@code r = max(0, C − samplePeriod) / E}, one sample discounted:
 * agents record one lookup in {@code samplePeriod}, each as {@code samplePeriod} lookups, so
 * every tracked id holds at least one sample just by being tracked, and in a long tail most ids
 * sampled once are rarer than that sample says. Undiscounted, under the default sampling (1 in 16,
 * half-life 10 min) one sample reads as about 4.4 requests per 4-minute window (16 × 240 s /
 * 866 s), so every tail id sampled once by chance would look sure to be requested. Against
 * scores much larger than the sample period the discount vanishes.
 *
 * <p>Pure: no I/O; the caller reads the ids with scores, the landmark and the meta.
 */
public final class HotSetForecast {

  /** The largest expected share of the hot set that is not requested within the window. */
  static final double MAX_WASTE = 0.05;

  private static final double LN2 = Math.log(2);

  private HotSetForecast() {}

  /**
   * The hot set chosen from the tracked ids.
   *
   * @param ids the chosen ids, hottest first: a prefix of the tracked ones
   * @param tracked how many hottest ids were considered (at most {@code warmup.hotSetSize})
   * @param window the window the forecast looks at
   * @param expectedWaste the mean probability that a chosen id is not requested within the window;
   *     0 when nothing is chosen or there is no forecast
   * @param noForecast why the ids were not forecast and all tracked ids are chosen, or null when
   *     they were
   * @param rates each chosen id's estimated lookups per second across the fleet, in the order of
   *     {@code ids}; empty when not forecast
   */
  public record Cut(List<String> ids, int tracked, Duration window, double expectedWaste,
      String noForecast, List<Double> rates) {

    public Cut {
      ids = List.copyOf(ids);
      rates = List.copyOf(rates);
      Objects.requireNonNull(window, "window");
      if (!rates.isEmpty() && rates.size() != ids.size()) {
        throw new IllegalArgumentException(rates.size() + " rates for " + ids.size() + " ids");
      }
    }

    /** A cut whose rates are not known. */
    Cut(List<String> ids, int tracked, Duration window, double expectedWaste, String noForecast) {
      this(ids, tracked, window, expectedWaste, noForecast, List.of());
    }

    /** How many ids were chosen. */
    public int size() {
      return ids.size();
    }

    /**
     * Such as {@code hot set: 2,345 of 10,000 tracked ids expected to be read within l2Ttl 4m},
     * or, without a forecast, {@code hot set: all 10,000 tracked ids, not forecast: <why>}.
     */
    public String describe() {
      if (noForecast != null) {
        return String.format(Locale.ROOT, "hot set: all %,d tracked ids, not forecast: %s",
            tracked, noForecast);
      }
      return String.format(Locale.ROOT,
          "hot set: %,d of %,d tracked ids expected to be read within l2Ttl %s", ids.size(),
          tracked, GateDecision.seconds(window));
    }
  }

  /**
   * All of {@code ranked}, unforecast, because of {@code why}: what the gate measured before
   * agents kept the hot set's meta.
   */
  static Cut all(List<ScoredValue<String>> ranked, Duration window, String why) {
    return new Cut(ranked.stream().map(ScoredValue::getValue).toList(), ranked.size(), window, 0,
        why);
  }

  /**
   * The forecast cut of {@code ranked}.
   *
   * @param keys names the keys in the reason of a fallback
   * @param ranked the tracked ids with their scores, hottest first ({@code ZREVRANGE ...
   *     WITHSCORES})
   * @param landmark the value of {@code T:hot:landmark}, or null when absent
   * @param meta the fields of {@code T:hot:meta} ({@code since}, {@code halfLifeMs},
   *     {@code samplePeriod}); empty when absent
   * @param now the time the scores are read at
   * @param window the window {@code W}: the policy's {@code l2Ttl}
   * @return the cut; all of {@code ranked} when landmark or meta are absent or malformed, with the
   *     reason
   */
  public static Cut of(ControlKeys keys, List<ScoredValue<String>> ranked, String landmark,
      Map<String, String> meta, Instant now, Duration window) {
    if (ranked.isEmpty()) {
      return new Cut(List.of(), 0, window, 0, null, List.of());
    }
    if (meta.isEmpty()) {
      return all(ranked, window, keys.hotMeta() + " is missing (agents of an older version do "
          + "not write it)");
    }
    Long halfLife = millis(meta.get("halfLifeMs"));
    if (halfLife == null || halfLife <= 0) {
      return all(ranked, window, malformed(keys.hotMeta() + " field halfLifeMs",
          meta.get("halfLifeMs"), "a positive number of milliseconds"));
    }
    Long samplePeriod = millis(meta.get("samplePeriod"));
    if (samplePeriod == null || samplePeriod <= 0) {
      return all(ranked, window, malformed(keys.hotMeta() + " field samplePeriod",
          meta.get("samplePeriod"), "a positive integer"));
    }
    Long since = millis(meta.get("since"));
    if (since == null) {
      return all(ranked, window, malformed(keys.hotMeta() + " field since", meta.get("since"),
          "epoch milliseconds"));
    }
    Long mark = millis(landmark);
    if (mark == null) {
      return all(ranked, window, malformed(keys.hotLandmark(), landmark, "epoch milliseconds"));
    }
    long observed = now.toEpochMilli() - since;
    if (observed <= 0) {
      return all(ranked, window, keys.hotMeta() + " field since (" + since + ") is not before now ("
          + now.toEpochMilli() + "), so no request rate is known yet");
    }
    double h = halfLife;
    // The decayed observation time E, and the factor that turns a score into C at now.
    double exposure = h / LN2 * -Math.expm1(-observed * LN2 / h);
    double decay = Math.exp(-(now.toEpochMilli() - mark) * LN2 / h);
    double perLookup = window.toMillis() / exposure;
    List<String> ids = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    double perSecond = 1000.0 / exposure;
    double missed = 0;
    for (ScoredValue<String> id : ranked) {
      double expected = Math.max(0, id.getScore() * decay - samplePeriod) * perLookup;
      double withIt = missed + Math.exp(-expected);
      // The ranking makes each id at most as likely to be read as the one before, so once the
      // mean passes the bound it stays past it.
      if (!(withIt / (ids.size() + 1) <= MAX_WASTE)) {
        break;
      }
      missed = withIt;
      ids.add(id.getValue());
      rates.add(Math.max(0, id.getScore() * decay - samplePeriod) * perSecond);
    }
    return new Cut(ids, ranked.size(), window, ids.isEmpty() ? 0 : missed / ids.size(), null,
        rates);
  }

  private static Long millis(String value) {
    if (value == null || value.isEmpty() || value.length() > 19) {
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return null;
      }
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String malformed(String what, String value, String expected) {
    return what + " is " + (value == null ? "missing" : "'" + bounded(value) + "'")
        + ", expected " + expected;
  }

  private static String bounded(String value) {
    return value.length() <= 40 ? value : value.substring(0, 40) + "...";
  }
}
