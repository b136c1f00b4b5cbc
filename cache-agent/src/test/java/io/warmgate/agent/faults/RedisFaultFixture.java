package io.warmgate.agent.faults;

import static org.awaitility.Awaitility.await;

import io.warmgate.agent.deal.Deal;
import io.warmgate.valkey.ValkeyEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Two pods over one L2 (a redis-server or a cluster) and a fast origin of {@value #DEALS} deals, L2 filled beforehand,
 * so that under a Zipf load L1 misses are answered by L2 until a fault hits it.
 */
final class RedisFaultFixture implements AutoCloseable {

  static final int DEALS = 10_000;
  static final int RATE = 1_000;
  static final int THREADS_PER_POD = 3;
  /** Long enough for L1 to keep whatever it loaded for the whole test: reloads then mean a miss. */
  static final Duration L1_TTL = Duration.ofMinutes(5);

  final Pod<Deal> a;
  final Pod<Deal> b;
  final List<String> ids = InMemoryDeals.ids(DEALS);

  RedisFaultFixture(ValkeyEndpoint valkey) {
    InMemoryDeals origin = new InMemoryDeals(DEALS, 1);
    a = Pod.start("pod-a", origin, valkey, w -> w.l1Ttl(L1_TTL).maxStaleness(L1_TTL.multipliedBy(2)));
    b = Pod.start("pod-b", origin, valkey, w -> w.l1Ttl(L1_TTL).maxStaleness(L1_TTL.multipliedBy(2)));
    for (int i = 0; i < ids.size(); i += 1_000) {
      a.cache.fillL2(ids.subList(i, Math.min(ids.size(), i + 1_000)));
    }
    a.origin.trackIds();
    b.origin.trackIds();
  }

  List<Pod<Deal>> pods() {
    return List.of(a, b);
  }

  LoadDriver<Deal> startLoad(String firstPhase) {
    return LoadDriver.start(List.of(a.cache, b.cache), KeyChooser.zipf(ids, 0.9), RATE,
        THREADS_PER_POD, (id, deal) -> deal != null && deal.dealId().equals(id), firstPhase);
  }

  long l2Hits() {
    return a.l2Hits() + b.l2Hits();
  }

  /** Holds the load for {@code millis}, returning which pods' breakers were seen open meanwhile. */
  List<Boolean> watchBreakers(long millis) {
    boolean[] open = new boolean[2];
    long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
    while (System.nanoTime() < end) {
      open[0] |= a.breakerState() == 1;
      open[1] |= b.breakerState() == 1;
      LoadDriver.hold(20);
    }
    return List.of(open[0], open[1]);
  }

  /**
   * Waits until both breakers are closed, L2 answered another 50 reads and served another
   * {@code hits} of them as hits; at most 15 s (two breaker waits of 5 s, as a probe sent while
   * the client is still reconnecting re-opens the breaker, plus the reconnect back-off).
   *
   * @return seconds until the breakers were closed, and until L2 was back in use
   */
  double[] awaitL2InUse(int hits) {
    long start = System.nanoTime();
    long hitsBefore = l2Hits();
    long readsBefore = hitsBefore + a.l2Misses() + b.l2Misses();
    double[] seconds = {-1, -1};
    BooleanSupplier back = () -> {
      boolean closed = a.breakerState() == 0 && b.breakerState() == 0;
      if (closed && seconds[0] < 0) {
        seconds[0] = (System.nanoTime() - start) / 1e9;
      }
      return closed && l2Hits() + a.l2Misses() + b.l2Misses() >= readsBefore + 50
          && l2Hits() >= hitsBefore + hits;
    };
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(back::getAsBoolean);
    seconds[1] = (System.nanoTime() - start) / 1e9;
    return seconds;
  }

  void printFigures() {
    pods().forEach(p -> System.out.println(p.figures()));
  }

  @Override
  public void close() {
    List<RuntimeException> errors = new ArrayList<>();
    for (Pod<Deal> p : pods()) {
      try {
        p.close();
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }
}
