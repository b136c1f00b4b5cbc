package io.warmgate.bench.common;

import io.warmgate.example.deal.DealSeeder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Draws deal ids from a Zipf distribution over deals 1..n. Popularity ranks are shuffled over the
 * deal numbers by a seed, so the hot deals are spread over the table as in production, not its
 * first rows; two samplers with the same popularity seed agree on which deals are hot.
 * Immutable; each draw takes the caller's {@link Random}.
 */
public final class ZipfIds {

  private final double[] cumulative;
  private final List<Integer> dealOfRank;

  /**
   * @throws IllegalArgumentException if {@code deals < 1} or {@code skew <= 0}
   */
  public ZipfIds(int deals, double skew, long popularitySeed) {
    if (deals < 1 || skew <= 0) {
      throw new IllegalArgumentException("a Zipf distribution needs deals ≥ 1 and skew > 0: got "
          + "deals=" + deals + ", skew=" + skew);
    }
    cumulative = new double[deals];
    double sum = 0;
    for (int rank = 1; rank <= deals; rank++) {
      sum += 1 / Math.pow(rank, skew);
      cumulative[rank - 1] = sum;
    }
    List<Integer> deal = new ArrayList<>(deals);
    for (int n = 1; n <= deals; n++) {
      deal.add(n);
    }
    Collections.shuffle(deal, new Random(popularitySeed));
    dealOfRank = List.copyOf(deal);
  }

  /** One id, drawn with {@code random}. */
  public String next(Random random) {
    double point = random.nextDouble() * cumulative[cumulative.length - 1];
    int low = 0;
    int high = cumulative.length - 1;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (cumulative[mid] < point) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return DealSeeder.dealId(dealOfRank.get(low));
  }
}
