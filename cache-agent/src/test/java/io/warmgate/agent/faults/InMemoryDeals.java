package io.warmgate.agent.faults;

import io.warmgate.agent.Origin;
import io.warmgate.agent.deal.Deal;
import io.warmgate.agent.deal.Deals;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A fast in-process Deal origin for the L2 faults, where Spanner is not the subject: the
 * emulator's ~5 reads/s would hide what L2 does. Knows {@code deal-000001..count}; each call costs
 * {@code latencyMillis}.
 */
final class InMemoryDeals implements Origin<Deal> {

  private final Set<String> known;
  private final long latencyMillis;

  InMemoryDeals(int count, long latencyMillis) {
    this.known = Set.copyOf(ids(count));
    this.latencyMillis = latencyMillis;
  }

  static List<String> ids(int count) {
    return IntStream.rangeClosed(1, count).mapToObj(n -> String.format("deal-%06d", n)).toList();
  }

  @Override
  public Map<String, Deal> loadAll(Collection<String> ids) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(latencyMillis);
    Map<String, Deal> out = new HashMap<>();
    for (String id : ids) {
      if (known.contains(id)) {
        out.put(id, Deals.deal(id, 3, 2));
      }
    }
    return out;
  }
}
