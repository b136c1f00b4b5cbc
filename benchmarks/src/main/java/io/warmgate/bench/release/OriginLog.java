package io.warmgate.bench.release;

import io.warmgate.agent.Origin;
import io.warmgate.bench.origin.CapacityModelledOrigin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
   * One origin call: when it started (epoch ms), the ids it asked for, by which version, how long
   * it took (ms), which grows with the origin's queue once it is saturated, and how it failed: the
   * status code of a modelled origin's refusal ({@code DEADLINE_EXCEEDED}, {@code
   * RESOURCE_EXHAUSTED}), the exception's class otherwise, null when it answered.
   */
  record Read(long atMillis, List<String> ids, boolean byNewPod, long tookMillis, String failure) {}

  private final ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();

  /** {@code origin}, logging each call here; its timeout is the origin's own. */
  <V> Origin<V> wrap(Origin<V> origin, boolean newPod) {
    return new Origin<>() {
      @Override
      public Map<String, V> loadAll(Collection<String> batch) throws Exception {
        return logged(origin, batch, newPod);
      }

      @Override
      public Duration timeout() {
        return origin.timeout();
      }
    };
  }

  private <V> Map<String, V> logged(Origin<V> origin, Collection<String> batch, boolean newPod)
      throws Exception {
    long at = System.currentTimeMillis();
    long start = System.nanoTime();
    String failure = null;
    try {
      return origin.loadAll(batch);
    } catch (CapacityModelledOrigin.StatusException e) {
      failure = e.code();
      throw e;
    } catch (Exception | Error e) {
      failure = e.getClass().getSimpleName();
      throw e;
    } finally {
      reads.add(new Read(at, List.copyOf(batch), newPod, (System.nanoTime() - start) / 1_000_000,
          failure));
    }
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

  /** Calls started in {@code [fromMillis, toMillis)} that failed with {@code code}. */
  long failedBetween(long fromMillis, long toMillis, String code) {
    return between(fromMillis, toMillis).stream().filter(r -> code.equals(r.failure())).count();
  }

  /** Calls started in {@code [fromMillis, toMillis)}. */
  long callsBetween(long fromMillis, long toMillis) {
    return between(fromMillis, toMillis).size();
  }

  void clear() {
    reads.clear();
  }
}
