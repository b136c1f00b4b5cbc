package io.warmgate.bench.release;

import io.warmgate.agent.Origin;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every origin read of the fleet, old and new pods alike, with the wall-clock time of the call:
 * what the database sees. Each pod wraps its own origin with {@link #wrap}.
 */
final class OriginLog {

  /** One origin call: when it started (epoch ms), the ids it asked for, and by which version. */
  record Read(long atMillis, List<String> ids, boolean byNewPod) {}

  private final ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();

  <V> Origin<V> wrap(Origin<V> origin, boolean newPod) {
    return batch -> {
      reads.add(new Read(System.currentTimeMillis(), List.copyOf(batch), newPod));
      return origin.loadAll(batch);
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

  void clear() {
    reads.clear();
  }
}
