package io.warmgate.agent.faults;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Picks the id of the next lookup: uniform, or Zipf-distributed so a few ids are hot. Thread-safe. */
final class KeyChooser {

  private final List<String> ids;
  private final double[] cdf;

  private KeyChooser(List<String> ids, double[] cdf) {
    this.ids = List.copyOf(ids);
    this.cdf = cdf;
  }

  static KeyChooser uniform(List<String> ids) {
    return new KeyChooser(ids, null);
  }

  /** Rank {@code r} (1-based) is chosen with probability proportional to {@code 1 / r^exponent}. */
  static KeyChooser zipf(List<String> ids, double exponent) {
    double[] cdf = new double[ids.size()];
    double sum = 0;
    for (int r = 0; r < cdf.length; r++) {
      sum += 1 / Math.pow(r + 1, exponent);
      cdf[r] = sum;
    }
    for (int r = 0; r < cdf.length; r++) {
      cdf[r] /= sum;
    }
    return new KeyChooser(ids, cdf);
  }

  String next() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (cdf == null) {
      return ids.get(random.nextInt(ids.size()));
    }
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    return ids.get(Math.min(i < 0 ? -i - 1 : i, ids.size() - 1));
  }

  List<String> ids() {
    return ids;
  }
}
