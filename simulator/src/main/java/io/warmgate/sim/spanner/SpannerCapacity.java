package io.warmgate.sim.spanner;

import java.time.Duration;
import java.util.Locale;

/**
 * A capacity-modelled Cloud Spanner instance answering reads, in virtual time: a <b>stand-in</b>
 * for a real instance, built from published figures and stated assumptions, never a measurement
 * of Spanner. Pure and deterministic: the caller moves time forward by offering the queries that
 * arrive in each interval; nothing here reads a clock.
 *
 * <p>What it is made of:
 *
 * <ul>
 *   <li><b>Capacity</b> (published): a regional node serves about {@value #SINGLE_ROW_READS_PER_NODE}
 *       single-row reads/s at 100 % CPU (Cloud Spanner performance documentation, regional
 *       configurations), and Google recommends keeping high-priority CPU at or below
 *       {@value #RECOMMENDED_CPU_PERCENT} % for regional instances. {@code nodes} may be
 *       fractional: an instance below one node is sized in processing units, 1,000 per node.
 *   <li><b>Cost of a query</b> (assumption): one single-row read costs {@code 1 /
 *       SINGLE_ROW_READS_PER_NODE} node-seconds of CPU, split into a per-query overhead (share
 *       {@code queryShare}, default {@value Settings#DEFAULT_QUERY_SHARE}) and a per-row cost (the
 *       rest). A batched {@code IN UNNEST(@ids)} read of {@code r} rows then costs {@code
 *       queryShare + r × (1 − queryShare)} single-row reads: a 200-row batch costs 100.5 of them
 *       at the default share. The split is not published; it is a setting.
 *   <li><b>Latency</b> (assumption): {@code baseLatency} (default 4 ms, single-digit ms as at low
 *       load) times a contention factor {@code 1 / (1 − ρ)} (ρ the utilisation of the last
 *       second, capped at 0.99: the delay grows with utilisation as in a queue), plus the query's
 *       own CPU time, plus the wait behind the work queued beyond capacity (a fluid FIFO queue
 *       that the nodes drain at {@code nodes} node-seconds per second).
 *   <li><b>Overload</b>: a query that cannot complete within the client's {@code deadline} fails
 *       with {@code DEADLINE_EXCEEDED}; the server still spends its CPU (it ran or queued the
 *       work for a client that has gone). Once the queue holds more than {@code maxQueue} of
 *       waiting, the server refuses new queries at once with {@code RESOURCE_EXHAUSTED}, as an
 *       overloaded instance pushes back.
 * </ul>
 *
 * <p>Not thread-safe: one instance per simulated instance, offered intervals in time order.
 */
public final class SpannerCapacity {

  /** Single-row reads per second one regional node serves at 100 % CPU (published). */
  public static final double SINGLE_ROW_READS_PER_NODE = 22_500;
  /** Google's recommended maximum high-priority CPU for a regional instance, percent. */
  public static final int RECOMMENDED_CPU_PERCENT = 65;
  /** The utilisation the contention factor stops growing at. */
  static final double MAX_RHO = 0.99;
  /** The time constant of the utilisation the contention factor reads, seconds. */
  static final double RHO_SECONDS = 1.0;

  /**
   * The instance and its client.
   *
   * @param nodes compute capacity in nodes (0.1 = 100 processing units); positive
   * @param queryShare the share of a single-row read's cost that is per-query overhead, in [0, 1)
   * @param baseLatency a query's latency at low load
   * @param deadline the client's timeout: a query not answered by then fails with
   *     {@code DEADLINE_EXCEEDED}
   * @param maxQueue the most waiting a query may face before the server refuses it with
   *     {@code RESOURCE_EXHAUSTED}
   */
  public record Settings(double nodes, double queryShare, Duration baseLatency, Duration deadline,
      Duration maxQueue) {

    /** The default per-query share of a single-row read's cost (an assumption). */
    public static final double DEFAULT_QUERY_SHARE = 0.5;
    /** The default latency at low load (single-digit ms). */
    public static final Duration DEFAULT_BASE_LATENCY = Duration.ofMillis(4);
    /** The agent's Spanner origin timeout by default ({@code SpannerOrigin.DEFAULT_TIMEOUT}). */
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);

    public Settings {
      if (!(nodes > 0) || Double.isInfinite(nodes)) {
        throw new IllegalArgumentException("nodes must be a positive number (0.1 = 100 processing "
            + "units), got " + nodes);
      }
      if (!(queryShare >= 0 && queryShare < 1)) {
        throw new IllegalArgumentException("queryShare must be in [0, 1), got " + queryShare);
      }
      positive("baseLatency", baseLatency);
      positive("deadline", deadline);
      positive("maxQueue", maxQueue);
    }

    /** {@code nodes} with every other setting at its default; the queue holds one deadline. */
    public static Settings of(double nodes) {
      return new Settings(nodes, DEFAULT_QUERY_SHARE, DEFAULT_BASE_LATENCY, DEFAULT_DEADLINE,
          DEFAULT_DEADLINE);
    }

    /** These settings with {@code deadline}, the queue holding as much. */
    public Settings withDeadline(Duration deadline) {
      return new Settings(nodes, queryShare, baseLatency, deadline, deadline);
    }

    /** Single-row reads per second at 100 % CPU. */
    public double capacity() {
      return nodes * SINGLE_ROW_READS_PER_NODE;
    }

    /** Such as {@code 1.4 nodes (31,500 single-row reads/s at 100 % CPU), ...}. */
    public String describe() {
      return String.format(Locale.ROOT, "%.1f nodes (%,.0f single-row reads/s at 100 %% CPU, "
          + "%d %% line %,.0f/s), per-query share of a read's cost %.2f, base latency %d ms, "
          + "client deadline %s, queue cap %s", nodes, capacity(), RECOMMENDED_CPU_PERCENT,
          capacity() * RECOMMENDED_CPU_PERCENT / 100.0, queryShare, baseLatency.toMillis(),
          human(deadline), human(maxQueue));
    }

    private static void positive(String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
      }
    }

    private static String human(Duration d) {
      return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
  }

  /**
   * What became of the queries offered in one interval.
   *
   * @param ok queries answered within the deadline
   * @param deadlineExceeded queries admitted but not answered within the deadline
   * @param resourceExhausted queries refused at once
   * @param meanLatencySeconds the mean latency of the answered queries; 0 when none
   * @param utilisation the CPU share the instance was busy over the interval, 0–1
   */
  public record Answer(long ok, long deadlineExceeded, long resourceExhausted,
      double meanLatencySeconds, double utilisation) {

    /** All queries of the interval. */
    public long queries() {
      return ok + deadlineExceeded + resourceExhausted;
    }
  }

  private final Settings settings;
  private double now = Double.NaN;
  /** Work queued beyond what the nodes have served, node-seconds. */
  private double backlog;
  /** The served work per second, averaged with time constant {@link #RHO_SECONDS}, nodes. */
  private double recent;

  public SpannerCapacity(Settings settings) {
    this.settings = settings;
  }

  public Settings settings() {
    return settings;
  }

  /** The CPU cost of {@code queries} queries reading {@code rows} rows in all, node-seconds. */
  public double cost(long queries, long rows) {
    return (settings.queryShare() * queries + (1 - settings.queryShare()) * rows)
        / SINGLE_ROW_READS_PER_NODE;
  }

  /** The utilisation of the last second the contention factor reads, 0–1. */
  public double recentUtilisation() {
    return Math.min(1, recent / settings.nodes());
  }

  /**
   * Offers {@code queries} queries of {@code rows / queries} rows each, arriving evenly over
   * {@code [at, at + seconds)}, and moves this instance to {@code at + seconds}.
   *
   * @throws IllegalArgumentException if {@code at} is before the end of the last interval, or a
   *     count is negative, or rows are offered without a query
   */
  public Answer offer(double at, double seconds, long queries, long rows) {
    if (queries < 0 || rows < 0 || (queries == 0 && rows > 0) || !(seconds > 0)) {
      throw new IllegalArgumentException("cannot offer " + queries + " queries of " + rows
          + " rows over " + seconds + " s: counts must be non-negative, rows need a query, and the"
          + " interval must be positive");
    }
    if (!Double.isNaN(now)) {
      if (at < now - 1e-9) {
        throw new IllegalArgumentException("offered at " + at + " s, before the end of the last "
            + "interval at " + now + " s: offer intervals in time order");
      }
      idle(at - now);
    }
    double n = settings.nodes();
    double rho = Math.min(MAX_RHO, recentUtilisation());
    double perQuery = queries == 0 ? 0 : cost(queries, rows) / queries;
    double fixed = settings.baseLatency().toNanos() / 1e9 / (1 - rho) + perQuery;
    double deadline = settings.deadline().toNanos() / 1e9;
    // A query is late when the queue ahead of it holds more than this much work.
    double lateAbove = Math.max(0, deadline - fixed) * n;
    double cap = settings.maxQueue().toNanos() / 1e9 * n;
    double arriving = queries * perQuery / seconds;
    double density = queries / seconds;
    Tally tally = new Tally();
    double b0 = backlog;
    double end;
    if (queries == 0 || arriving <= n) {
      double slope = arriving - n;
      double empty = slope < 0 ? Math.min(seconds, b0 / -slope) : seconds;
      tally.piece(b0, slope, empty, density, lateAbove);
      tally.piece(0, 0, seconds - empty, density, lateAbove);
      end = Math.max(0, b0 + slope * seconds);
    } else {
      double full = b0 >= cap ? 0 : Math.min(seconds, (cap - b0) / (arriving - n));
      tally.piece(b0, arriving - n, full, density, lateAbove);
      // At the cap the server admits what it drains and refuses the rest.
      double admitted = n / arriving;
      tally.piece(Math.max(b0, cap), 0, seconds - full, density * admitted, lateAbove);
      tally.refused += density * (1 - admitted) * (seconds - full);
      end = Math.max(0, b0 + (arriving - n) * full);
    }
    long refused = Math.round(tally.refused);
    long late = Math.round(tally.late);
    long ok = Math.max(0, queries - refused - late);
    double admittedWork = (queries - refused) * perQuery;
    double served = Math.max(0, b0 + admittedWork - end);
    backlog = end;
    now = at + seconds;
    double decay = Math.exp(-seconds / RHO_SECONDS);
    recent = recent * decay + served / seconds * (1 - decay);
    double meanWait = tally.ok == 0 ? 0 : tally.waitSum / tally.ok / n;
    return new Answer(ok, late, refused, ok == 0 ? 0 : fixed + meanWait,
        Math.min(1, served / (n * seconds)));
  }

  /** Lets {@code seconds} pass with no query arriving. */
  private void idle(double seconds) {
    double served = Math.min(backlog, settings.nodes() * seconds);
    backlog -= served;
    double decay = Math.exp(-seconds / RHO_SECONDS);
    recent = recent * decay + (seconds > 0 ? served / seconds * (1 - decay) : 0);
  }

  /**
   * Sums, over pieces of an interval where the queued work is linear in time, the queries that
   * are answered in time, late or refused, and the queued work the answered ones waited behind.
   */
  private static final class Tally {
    double ok;
    double late;
    double refused;
    double waitSum;

    /**
     * A piece of {@code length} seconds where the queue starts at {@code q0} and changes by
     * {@code slope} per second, queries arriving at {@code density} per second.
     */
    void piece(double q0, double slope, double length, double density, double lateAbove) {
      if (length <= 0 || density <= 0) {
        return;
      }
      double q1 = q0 + slope * length;
      // The part of the piece where the queue is at most lateAbove: one interval, as q is linear.
      double okFrom;
      double okTo;
      if (q0 <= lateAbove && q1 <= lateAbove) {
        okFrom = 0;
        okTo = length;
      } else if (q0 > lateAbove && q1 > lateAbove) {
        okFrom = 0;
        okTo = 0;
      } else {
        double cross = (lateAbove - q0) / slope;
        okFrom = q0 <= lateAbove ? 0 : cross;
        okTo = q0 <= lateAbove ? cross : length;
      }
      double okLength = okTo - okFrom;
      ok += density * okLength;
      late += density * (length - okLength);
      // The queue's mean over the answered part, times the queries answered.
      double meanQueue = q0 + slope * (okFrom + okTo) / 2;
      waitSum += density * okLength * meanQueue;
    }
  }
}
