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
 *   <li><b>Overload</b>: past capacity the queue grows. A query that would wait so long that it
 *       cannot complete within the client's {@code deadline} fails with {@code DEADLINE_EXCEEDED}
 *       (the client waited the deadline) and costs no CPU: the cancelled query is dropped. When
 *       {@code maxQueue} is shorter than that wait, the server instead refuses queries that
 *       would queue beyond it at once with {@code RESOURCE_EXHAUSTED}, as an instance that
 *       pushes back does. Either way the nodes keep answering their capacity in time.
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

    /** Single-row reads per second at the recommended {@value #RECOMMENDED_CPU_PERCENT} % CPU. */
    public double recommendedLine() {
      return capacity() * RECOMMENDED_CPU_PERCENT / 100.0;
    }

    /** Such as {@code 1.4 nodes (31,500 single-row reads/s at 100 % CPU), ...}. */
    public String describe() {
      return String.format(Locale.ROOT, "%s nodes (%,.0f single-row reads/s at 100 %% CPU, "
          + "%d %% line %,.0f/s), per-query share of a read's cost %.2f, base latency %d ms, "
          + "client deadline %s, queue cap %s", nodes(nodes), capacity(), RECOMMENDED_CPU_PERCENT,
          recommendedLine(), queryShare, baseLatency.toMillis(),
          human(deadline), human(maxQueue));
    }

    /** Tenths of a node from one node up, processing units (thousandths) below. */
    private static String nodes(double nodes) {
      return String.format(Locale.ROOT, nodes >= 1 ? "%.1f" : "%.3f", nodes);
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
    double arriving = queries * perQuery / seconds;
    double density = queries / seconds;
    double cap = settings.maxQueue().toNanos() / 1e9 * n;
    // The queue never holds work that would answer late: such a query is dropped when its
    // deadline passes (no CPU spent), and the server refuses what would queue beyond maxQueue.
    boolean lateFirst = lateAbove <= cap;
    double limit = Math.min(lateAbove, cap);
    double b0 = backlog;
    double q = b0;
    double ok = 0;
    double rejected = 0;
    double waitSum = 0;
    double elapsed = 0;
    if (q > limit) {
      // The contention of the last second moved the limit below the queue: what arrives while
      // the nodes drain it down to the limit cannot be answered in time.
      elapsed = Math.min(seconds, (q - limit) / n);
      rejected += density * elapsed;
      q -= n * elapsed;
    }
    double rest = seconds - elapsed;
    if (rest > 0) {
      if (arriving <= n) {
        double slope = arriving - n;
        double draining = slope < 0 ? Math.min(rest, q / -slope) : rest;
        ok += density * rest;
        waitSum += density * draining * (q + slope * draining / 2);
        q = Math.max(0, q + slope * rest);
      } else {
        double filling = Math.min(rest, (limit - q) / (arriving - n));
        ok += density * filling;
        waitSum += density * filling * (q + (arriving - n) * filling / 2);
        double full = rest - filling;
        double admitted = n / arriving;
        ok += density * admitted * full;
        waitSum += density * admitted * full * limit;
        rejected += density * (1 - admitted) * full;
        q += (arriving - n) * filling;
      }
    }
    long lost = Math.min(queries, Math.round(rejected));
    long late = lateFirst ? lost : 0;
    long refused = lateFirst ? 0 : lost;
    long answered = queries - lost;
    double admittedWork = answered * perQuery;
    double served = Math.max(0, b0 + admittedWork - q);
    backlog = q;
    now = at + seconds;
    double decay = Math.exp(-seconds / RHO_SECONDS);
    recent = recent * decay + served / seconds * (1 - decay);
    double meanWait = ok <= 0 ? 0 : waitSum / ok / n;
    return new Answer(answered, late, refused, answered == 0 ? 0 : fixed + meanWait,
        Math.min(1, served / (n * seconds)));
  }

  /** Lets {@code seconds} pass with no query arriving. */
  private void idle(double seconds) {
    double served = Math.min(backlog, settings.nodes() * seconds);
    backlog -= served;
    double decay = Math.exp(-seconds / RHO_SECONDS);
    recent = recent * decay + (seconds > 0 ? served / seconds * (1 - decay) : 0);
  }
}
