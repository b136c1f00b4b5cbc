package io.warmgate.bench.operator;

import io.warmgate.bench.common.Percentiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Measured durations in milliseconds, summarised by nearest-rank percentiles. Not thread-safe. */
final class Samples {

  private final List<Double> millis = new ArrayList<>();

  void addNanos(long nanos) {
    millis.add(nanos / 1e6);
  }

  Samples copy() {
    Samples copy = new Samples();
    copy.millis.addAll(millis);
    return copy;
  }

  void addAll(Samples other) {
    millis.addAll(other.millis);
  }

  void clear() {
    millis.clear();
  }

  int count() {
    return millis.size();
  }

  double p50() {
    return percentile(50);
  }

  double p95() {
    return percentile(95);
  }

  double max() {
    return percentile(100);
  }

  /** Nearest rank: the smallest sample with at least {@code p} % of the samples at or below it. */
  double percentile(double p) {
    if (millis.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return Percentiles.nearestRank(sorted, p / 100.0);
  }

  /** "p50 / p95 / max" in milliseconds, for a table cell. */
  String cell() {
    return count() == 0 ? "n/a" : ms(p50()) + " / " + ms(p95()) + " / " + ms(max());
  }

  Map<String, Object> toJson() {
    return Map.of("count", count(), "p50Ms", p50(), "p95Ms", p95(), "maxMs", max(),
        "samplesMs", List.copyOf(millis));
  }

  static String ms(double millis) {
    return String.format(Locale.ROOT, millis >= 100 ? "%.0f ms" : "%.1f ms", millis);
  }
}
