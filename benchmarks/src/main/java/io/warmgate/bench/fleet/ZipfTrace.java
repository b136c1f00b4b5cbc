package io.warmgate.bench.fleet;

import io.warmgate.bench.common.ZipfIds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A reproducible lookup trace: requests of a few deal ids each, drawn by {@link ZipfIds} over the
 * seeded deals.
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
    if (requestCount < 1 || idsPerRequest < 1) {
      throw new IllegalArgumentException("a trace needs requests ≥ 1 and ids per request ≥ 1: got"
          + " requests=" + requestCount + ", idsPerRequest=" + idsPerRequest);
    }
    ZipfIds zipf = new ZipfIds(deals, skew, popularitySeed);
    Random random = new Random(drawSeed);
    List<List<String>> requests = new ArrayList<>(requestCount);
    for (int r = 0; r < requestCount; r++) {
      List<String> ids = new ArrayList<>(idsPerRequest);
      for (int i = 0; i < idsPerRequest; i++) {
        ids.add(zipf.next(random));
      }
      requests.add(List.copyOf(ids));
    }
    return new ZipfTrace(List.copyOf(requests));
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
