package io.warmgate.bench.release;

import io.warmgate.agent.Origin;
import io.warmgate.bench.common.SyntheticDeals;
import io.warmgate.bench.origin.CapacityModelledOrigin;
import io.warmgate.example.deal.Deal;
import io.warmgate.sim.spanner.SpannerCapacity;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/**
 * The fleet's one modelled Spanner instance: a <b>stand-in</b> for Spanner, shared by every pod as
 * one database is. Deals are made in memory ({@link SyntheticDeals}); each call first takes the
 * time {@link CapacityModelledOrigin} gives it, or fails as an overloaded instance does.
 *
 * <p>While the old fleet fills its caches the instance is ample ({@value #AMPLE_NODES} nodes), so
 * that each release starts from a warm fleet however small the sized instance; it is sized
 * ({@link #size}) one L2 TTL before the release, where the steady rate is measured. The pods'
 * origin timeout is the model's deadline, SpannerOrigin's default. Thread-safe.
 */
final class ModelledDeals implements Origin<Deal> {

  /** The share of the sized capacity the old fleet's steady traffic uses, percent. */
  static final int STEADY_SHARE_PERCENT = 33;
  /** Nodes of the instance while the old fleet warms up: enough that nothing queues. */
  static final double AMPLE_NODES = 1_000;

  private volatile CapacityModelledOrigin<Deal> current = modelled(AMPLE_NODES);

  private static CapacityModelledOrigin<Deal> modelled(double nodes) {
    return new CapacityModelledOrigin<>(SyntheticDeals.origin(), SpannerCapacity.Settings.of(nodes));
  }

  /** Makes the instance ample again, with an empty queue. */
  void ample() {
    current = modelled(AMPLE_NODES);
  }

  /** Gives the instance {@code nodes} nodes, with an empty queue. */
  void size(double nodes) {
    current = modelled(nodes);
  }

  /** The settings of the instance as it is now. */
  SpannerCapacity.Settings settings() {
    return current.settings();
  }

  /**
   * The nodes at which {@code queriesPerSecond} queries reading {@code rowsPerSecond} rows use
   * {@value #STEADY_SHARE_PERCENT} % of the capacity, to the processing unit (0.001 node).
   */
  static double nodesFor(double queriesPerSecond, double rowsPerSecond) {
    double share = SpannerCapacity.Settings.DEFAULT_QUERY_SHARE;
    double nodeSeconds = share * queriesPerSecond + (1 - share) * rowsPerSecond;
    double nodes = nodeSeconds / SpannerCapacity.SINGLE_ROW_READS_PER_NODE * 100
        / STEADY_SHARE_PERCENT;
    return Math.max(0.001, Math.ceil(nodes * 1000) / 1000);
  }

  /**
   * The policy's {@code preloadRate} for an instance of {@code nodes}: half the room between the
   * steady share and the {@value SpannerCapacity#RECOMMENDED_CPU_PERCENT} % line, in ids read a
   * second at a row's cost (a batched read's per-query overhead is left out, which errs on the
   * low side).
   */
  static int preloadRate(double nodes) {
    double room = (SpannerCapacity.RECOMMENDED_CPU_PERCENT - STEADY_SHARE_PERCENT) / 100.0 / 2;
    double rowCost = 1 - SpannerCapacity.Settings.DEFAULT_QUERY_SHARE;
    return Math.max(1, (int) (room * SpannerCapacity.Settings.of(nodes).capacity() / rowCost));
  }

  /** The modelled client's deadline, the same whatever the nodes. */
  @Override
  public Duration timeout() {
    return current.timeout();
  }

  @Override
  public Map<String, Deal> loadAll(Collection<String> ids) throws Exception {
    return current.loadAll(ids);
  }
}
