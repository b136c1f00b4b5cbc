package io.warmgate.bench.release;

import io.warmgate.agent.Origin;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every origin read of the fleet, old and new pods alike, with the wall-clock time of the call:
 * what the database sees. Each pod wraps its own origin with {@link #wrap}; a call is logged when
 * it returns, under the time it started.
 */
final class OriginLog {

  /**
   * One origin call: when it started (epoch ms), the ids it asked for, by which version, and how
   * long it took (ms), which grows with the emulator's queue once it is saturated.
   */
  record Read(long atMillis, List<String> ids, boolean byNewPod, long tookMillis) {}

  private final ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();

  <V> Origin<V> wrap(Origin<V> origin, boolean newPod) {
    return batch -> {
      long at = System.currentTimeMillis();
      long start = System.nanoTime();
      try {
        return origin.loadAll(batch);
      } finally {
        reads.add(new Read(at, List.copyOf(batch), newPod, (System.nanoTime() - start) / 1_000_000));
      }
    };
  }

  /** The calls that started in {@code [fromMillis, toMillis)}. */
  List<Read> between(long fromMillis, long toMillis) {
    List<Read> in = new ArrayList<>();
    for (Read r : reads) {
      if (r.atMillis() >= fromMillis && r.atMillis() < toMillis) {
        in.add(r);
      }
    }
    return in;
  }

  /** Ids read in {@code [fromMillis, toMillis)}, a repeated id counted each time. */
  long idsBetween(long fromMillis, long toMillis) {
    return between(fromMillis, toMillis).stream().mapToLong(r -> r.ids().size()).sum();
  }

  /**
   * New-version reads in {@code [fromMillis, toMillis)} of an id that the new version had already
   * started reading less than {@code gapMillis} before: reads that a cache with one read per key
   * would not make. With {@code gapMillis} = the L2 TTL less the refresh-ahead window, a value
   * written by the earlier read was still in L2 and not yet due for refresh, so neither expiry
   * nor refresh-ahead explains the second read.
   */
  long newVersionDuplicates(long fromMillis, long toMillis, long gapMillis) {
    List<Read> reads = new ArrayList<>(between(fromMillis, toMillis));
    reads.removeIf(r -> !r.byNewPod());
    reads.sort(Comparator.comparingLong(Read::atMillis));
    Map<String, Long> lastStart = new HashMap<>();
    long duplicates = 0;
    for (Read r : reads) {
      for (String id : r.ids()) {
        Long last = lastStart.put(id, r.atMillis());
        if (last != null && r.atMillis() - last < gapMillis) {
          duplicates++;
        }
      }
    }
    return duplicates;
  }

  /** The mean duration of the calls that started in {@code [fromMillis, toMillis)}, ms; 0 if none. */
  double meanMillisBetween(long fromMillis, long toMillis) {
    return between(fromMillis, toMillis).stream().mapToLong(Read::tookMillis).average().orElse(0);
  }

  void clear() {
    reads.clear();
  }
}
