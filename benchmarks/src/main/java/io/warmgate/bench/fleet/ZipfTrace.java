package io.warmgate.bench.fleet;

import io.warmgate.testing.DealSeeder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A reproducible lookup trace: requests of a few deal ids each, ids drawn from a Zipf distribution
 * over the seeded deals. Popularity ranks are shuffled over the deal numbers, so the hot deals are
 * spread over the table as they would be in production, not its first rows.
 */
final class ZipfTrace {

  private final List<List<String>> requests;

  private ZipfTrace(List<List<String>> requests) {
    this.requests = requests;
  }

  /**
   * Draws {@code requestCount} requests of {@code idsPerRequest} ids over deals 1..{@code deals}
   * with exponent {@code skew}; the same arguments give the same trace. {@code popularitySeed}
   * decides which deals are hot, {@code drawSeed} the draws: two traces with the same popularity
   * seed are two stretches of the same traffic.
   */
  static ZipfTrace generate(int deals, double skew, int requestCount, int idsPerRequest,
      long popularitySeed, long drawSeed) {
    if (deals < 1 || skew <= 0 || requestCount < 1 || idsPerRequest < 1) {
      throw new IllegalArgumentException("a trace needs deals ≥ 1, skew > 0, requests ≥ 1 and ids per"
          + " request ≥ 1: got deals=" + deals + ", skew=" + skew + ", requests=" + requestCount
          + ", idsPerRequest=" + idsPerRequest);
    }
    double[] cumulative = new double[deals];
    double sum = 0;
    for (int rank = 1; rank <= deals; rank++) {
      sum += 1 / Math.pow(rank, skew);
      cumulative[rank - 1] = sum;
    }
    List<Integer> dealOfRank = new ArrayList<>(deals);
    for (int n = 1; n <= deals; n++) {
      dealOfRank.add(n);
    }
    Collections.shuffle(dealOfRank, new Random(popularitySeed));
    Random random = new Random(drawSeed);
    List<List<String>> requests = new ArrayList<>(requestCount);
    for (int r = 0; r < requestCount; r++) {
      List<String> ids = new ArrayList<>(idsPerRequest);
      for (int i = 0; i < idsPerRequest; i++) {
        int rank = rankOf(cumulative, random.nextDouble() * sum);
        ids.add(DealSeeder.dealId(dealOfRank.get(rank)));
      }
      requests.add(List.copyOf(ids));
    }
    return new ZipfTrace(List.copyOf(requests));
  }

  private static int rankOf(double[] cumulative, double point) {
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
    return low;
  }

  /** The requests, starting at {@code offset} and wrapping around: one pod's share of traffic. */
  List<List<String>> rotated(int offset) {
    int start = Math.floorMod(offset, requests.size());
    List<List<String>> rotated = new ArrayList<>(requests.subList(start, requests.size()));
    rotated.addAll(requests.subList(0, start));
    return rotated;
  }

  List<List<String>> requests() {
    return requests;
  }

  int lookups() {
    return requests.stream().mapToInt(List::size).sum();
  }

  Set<String> distinctIds() {
    Set<String> ids = new HashSet<>();
    requests.forEach(ids::addAll);
    return ids;
  }
}
