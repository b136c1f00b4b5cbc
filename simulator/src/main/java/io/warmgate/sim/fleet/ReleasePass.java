package io.warmgate.sim.fleet;

import io.warmgate.sim.spanner.SpannerCapacity;
import java.util.Arrays;

/**
 * Plays a release over every id in time order: when each namespace (old schema, new schema)
 * reads each id from the origin, and what the origin answered.
 *
 * <p>Each id is its own process, as L2 keys are: the fleet's lookups of an id are Poisson at the
 * id's Zipf rate, spread over the versions by the {@link Schedule}. A namespace reads an id from
 * the origin once per value, which the fill lease guarantees (one read per id while a read is in
 * flight, the others wait for its value): at its first lookup there, then, after each successful
 * read, at the first L2 lookup from {@code l2Ttl − refreshAhead} on, whether that lookup finds the
 * value in its refresh-ahead window (one pod refreshes, under the lock) or expired (a fill). L2
 * lookups are L1 misses: once a namespace has held a value, its pods ask L2 for the id at
 * {@link L1Model#l2Rate}, each pod's L1 holding it one L1 TTL. The hot set's preload reads each of
 * its ids in its batch, present or not.
 *
 * <p>Time advances in ticks of {@code tick} seconds. The reads of a tick are offered to the
 * {@link SpannerCapacity} model together; a read fails with the share the model failed, drawn per
 * read. A failed read writes nothing: the id is read again at its next lookup after the failure
 * came back (after the deadline for {@code DEADLINE_EXCEEDED}, at once for
 * {@code RESOURCE_EXHAUSTED}, but not before the next tick), and the lookups waiting on a failed
 * fill (no value to serve) fail with it. A failed preload batch is retried a second after the
 * failure came back.
 */
final class ReleasePass {

  /** What a pass counted. Per-tick and per-second arrays start at {@code from}. */
  static final class Tally {
    final double[] queries;
    final double[] rows;
    final long[] reads;
    final long[] newReads;
    /** New-version reads of ids outside the hot set (all of them without one), per second. */
    final long[] newOutside;
    /** The warm job's reads, per second (part of {@link #reads}). */
    final long[] preloadReads;
    final float[] deadlineShare;
    final float[] exhaustedShare;
    final float[] latency;
    final float[] utilisation;
    /** New-version reads of an id it had not held yet, or preloaded again: the release's cost. */
    long newFills;
    long newRenewals;
    long newDistinct;
    double lookupsDeadline;
    double lookupsExhausted;
    /** When each hot-set id first held a value in the new namespace (by position). */
    final double[] presentAt;

    Tally(int ticks, int seconds, int hotSet) {
      queries = new double[ticks];
      rows = new double[ticks];
      deadlineShare = new float[ticks];
      exhaustedShare = new float[ticks];
      latency = new float[ticks];
      utilisation = new float[ticks];
      reads = new long[seconds];
      newReads = new long[seconds];
      newOutside = new long[seconds];
      preloadReads = new long[seconds];
      presentAt = new double[hotSet];
      Arrays.fill(presentAt, Double.POSITIVE_INFINITY);
    }
  }

  private static final int OLD = 0;
  private static final int NEW = 1;
  private static final int PRELOAD = 2;
  private static final byte HELD = 1;
  private static final byte READ = 2;

  private final Popularity popularity;
  private final L1Model l1;
  private final Schedule schedule;
  private final HotSet hotSet;
  private final SpannerCapacity.Settings origin;
  private final double from;
  private final double end;
  private final double tick;
  private final double deadline;
  private final long seed;
  private final int ticks;
  private final int seconds;
  private final double renewAfter = SimParams.L2_TTL - SimParams.REFRESH_AHEAD;

  // Per namespace and id (index 2 * id + namespace): exact time of the pending event, value
  // expiry, flags and the id's draws.
  private float[] at;
  private float[] expiry;
  private byte[] flags;
  private long[] draws;
  /** The tick whose bucket holds the pending event: an event found in another bucket is stale. */
  private int[] pendingTick;
  /** Pending events per tick: codes {@code (id << 2) | kind}. */
  private int[][] buckets;
  private int[] sizes;
  private double[] preloadAt;

  /**
   * @param from when the old fleet starts, in its steady state
   * @param end where the window ends: nothing is read after it
   */
  ReleasePass(Popularity popularity, L1Model l1, Schedule schedule, HotSet hotSet,
      SpannerCapacity.Settings origin, double from, double end, double tick, long seed) {
    this.popularity = popularity;
    this.l1 = l1;
    this.schedule = schedule;
    this.hotSet = hotSet;
    this.origin = origin;
    this.from = from;
    this.end = end;
    this.tick = tick;
    this.deadline = origin.deadline().toNanos() / 1e9;
    this.seed = seed;
    this.ticks = (int) Math.ceil((end - from) / tick);
    this.seconds = (int) Math.ceil(end - from);
  }

  Tally run() {
    int n = popularity.ids();
    at = new float[2 * (n + 1)];
    expiry = new float[2 * (n + 1)];
    flags = new byte[2 * (n + 1)];
    draws = new long[2 * (n + 1)];
    pendingTick = new int[2 * (n + 1)];
    Arrays.fill(pendingTick, -1);
    buckets = new int[ticks][];
    sizes = new int[ticks];
    Tally t = new Tally(ticks, seconds, hotSet == null ? 0 : hotSet.size());
    for (int id = 1; id <= n; id++) {
      startOld(id);
      startNew(id);
    }
    if (hotSet != null && hotSet.preloads()) {
      preloadAt = new double[hotSet.size()];
      for (int j = 0; j < hotSet.size(); j++) {
        preloadAt[j] = hotSet.preloadAt(j);
        schedule(hotSet.ids[j], PRELOAD, preloadAt[j], 0);
      }
    }
    SpannerCapacity model = new SpannerCapacity(origin);
    for (int k = 0; k < ticks; k++) {
      int[] events = buckets[k];
      int count = sizes[k];
      buckets[k] = null;
      double queries = 0;
      long rows = count;
      for (int e = 0; e < count; e++) {
        queries += (events[e] & 3) == PRELOAD ? 1.0 / hotSet.batch() : 1;
      }
      long q = Math.round(queries);
      if (q == 0 && rows > 0) {
        q = 1;
      }
      SpannerCapacity.Answer a = model.offer(from + k * tick, tick, q, rows);
      t.queries[k] = queries;
      t.rows[k] = rows;
      t.utilisation[k] = (float) a.utilisation();
      double late = q == 0 ? 0 : (double) a.deadlineExceeded() / q;
      double refused = q == 0 ? 0 : (double) a.resourceExhausted() / q;
      t.deadlineShare[k] = (float) late;
      t.exhaustedShare[k] = (float) refused;
      double latency = a.ok() > 0 ? a.meanLatencySeconds() : deadline;
      t.latency[k] = (float) latency;
      for (int e = 0; e < count; e++) {
        int code = events[e];
        int id = code >>> 2;
        int kind = code & 3;
        if (kind != PRELOAD && pendingTick[2 * id + kind] != k) {
          continue;
        }
        if (kind == OLD) {
          old(id, k, late, refused, latency, t);
        } else {
          fresh(id, kind == PRELOAD, k, late, refused, latency, t);
        }
      }
    }
    return t;
  }

  private void startOld(int id) {
    int s = 2 * id + OLD;
    draws[s] = seed(id, OLD);
    double l2 = l1.l2Rate(popularity.rate(id));
    // Start in the renewal cycle's stationary state: inside the value's fixed part with the
    // probability of its share of the mean cycle, else waiting for the next L2 lookup.
    double cycle = renewAfter + 1 / l2;
    double next = uniform(s) < renewAfter / cycle
        ? schedule.next(false, from + uniform(s) * renewAfter, l2, exponential(s))
        : schedule.next(false, from, l2, exponential(s));
    expiry[s] = Float.POSITIVE_INFINITY;
    schedule(id, OLD, next, 0);
  }

  private void startNew(int id) {
    int s = 2 * id + NEW;
    draws[s] = seed(id, NEW);
    expiry[s] = Float.NEGATIVE_INFINITY;
    // Until the first value, every pod's L1 misses: lookups reach L2 at the full rate.
    schedule(id, NEW, schedule.next(true, 0, popularity.rate(id), exponential(s)), 0);
  }

  private void old(int id, int k, double late, double refused, double latency, Tally t) {
    int s = 2 * id + OLD;
    double r = at[s];
    double rate = popularity.rate(id);
    double l2 = l1.l2Rate(rate);
    count(t, r, 1, false, false);
    double u = uniform(s);
    if (u < late + refused) {
      double back = u < late ? deadline : 0;
      if (r >= expiry[s]) {
        failed(t, u < late, 1 + rate * (1 - schedule.newShare(r)) * back);
      }
      schedule(id, OLD, schedule.next(false, r + back, r >= expiry[s] ? rate : l2,
          exponential(s)), k + 1);
    } else {
      double fetched = r + latency;
      expiry[s] = (float) (fetched + SimParams.L2_TTL);
      schedule(id, OLD, schedule.next(false, fetched + renewAfter, l2, exponential(s)), k + 1);
    }
  }

  private void fresh(int id, boolean preloading, int k, double late, double refused,
      double latency, Tally t) {
    int s = 2 * id + NEW;
    int position = hotSet == null ? -1 : hotSet.position(id);
    double r = preloading ? preloadAt[position] : at[s];
    double rate = popularity.rate(id);
    double l2 = l1.l2Rate(rate);
    boolean held = (flags[s] & HELD) != 0;
    if ((flags[s] & READ) == 0) {
      flags[s] |= READ;
      t.newDistinct++;
    }
    count(t, r, 1, true, position < 0);
    if (preloading) {
      t.preloadReads[second(t, r)]++;
      t.newFills++;
    } else if (held) {
      t.newRenewals++;
    } else {
      t.newFills++;
    }
    boolean present = r < expiry[s];
    double u = uniform(s);
    if (u < late + refused) {
      double back = u < late ? deadline : 0;
      if (preloading) {
        preloadAt[position] = r + back + 1;
        schedule(id, PRELOAD, preloadAt[position], k + 1);
      } else {
        if (!present) {
          failed(t, u < late, 1 + rate * schedule.newShare(r) * back);
        }
        schedule(id, NEW, schedule.next(true, r + back, present || held ? l2 : rate,
            exponential(s)), k + 1);
      }
      return;
    }
    double fetched = r + latency;
    if (position >= 0 && fetched < t.presentAt[position]) {
      t.presentAt[position] = fetched;
    }
    expiry[s] = (float) (fetched + SimParams.L2_TTL);
    flags[s] |= HELD;
    if (!preloading) {
      schedule(id, NEW, schedule.next(true, fetched + renewAfter, l2, exponential(s)), k + 1);
    } else if (!held) {
      // The preload's value replaces the pending first lookup's fill: the id's next read is its
      // renewal. The pending event is moved, not doubled.
      unschedule(id, NEW);
      schedule(id, NEW, schedule.next(true, fetched + renewAfter, l2, exponential(s)), k + 1);
    }
  }

  private void schedule(int id, int kind, double time, int earliest) {
    if (!(time < end)) {
      if (kind != PRELOAD) {
        at[2 * id + kind] = Float.POSITIVE_INFINITY;
        pendingTick[2 * id + kind] = -1;
      }
      return;
    }
    int k = Math.max(earliest, (int) ((time - from) / tick));
    if (k >= ticks) {
      return;
    }
    if (kind != PRELOAD) {
      at[2 * id + kind] = (float) Math.max(time, from + k * tick);
      pendingTick[2 * id + kind] = k;
    }
    int[] b = buckets[k];
    if (b == null) {
      b = new int[8];
      buckets[k] = b;
    } else if (sizes[k] == b.length) {
      b = Arrays.copyOf(b, b.length * 2);
      buckets[k] = b;
    }
    b[sizes[k]++] = (id << 2) | kind;
  }

  /** Drops {@code id}'s pending event of {@code kind} from its bucket, if it is still to come. */
  private void unschedule(int id, int kind) {
    int k = pendingTick[2 * id + kind];
    pendingTick[2 * id + kind] = -1;
    at[2 * id + kind] = Float.POSITIVE_INFINITY;
    int[] b = k < 0 ? null : buckets[k];
    int code = (id << 2) | kind;
    for (int e = 0; b != null && e < sizes[k]; e++) {
      if (b[e] == code) {
        b[e] = b[--sizes[k]];
        return;
      }
    }
  }

  /** The second of {@code time}, from {@code from}. */
  private int second(Tally t, double time) {
    // Times are kept as floats: one rounded up to the window's end counts in its last second.
    return Math.min(t.reads.length - 1, (int) (time - from));
  }

  private void failed(Tally t, boolean late, double lookups) {
    if (late) {
      t.lookupsDeadline += lookups;
    } else {
      t.lookupsExhausted += lookups;
    }
  }

  private void count(Tally t, double time, long rows, boolean newVersion, boolean outsideHotSet) {
    int s = second(t, time);
    t.reads[s] += rows;
    if (newVersion) {
      t.newReads[s] += rows;
      if (outsideHotSet) {
        t.newOutside[s] += rows;
      }
    }
  }

  // SplitMix64 per namespace and id, seeded from the run's seed, the id and the namespace only:
  // every strategy sees the same draws for an id (common random numbers).

  private long seed(int id, int namespace) {
    return mix(seed ^ mix(id * 0x9E3779B97F4A7C15L + namespace));
  }

  private double uniform(int s) {
    draws[s] += 0x9E3779B97F4A7C15L;
    return (mix(draws[s]) >>> 11) * 0x1.0p-53;
  }

  private double exponential(int s) {
    return -Math.log(1 - uniform(s));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
