package io.warmgate.agent.hot;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Samples the ids of lookups and adds them to the cache's decaying hot set
 * {@code {wg:<cache>}:hot}.
 *
 * <p><b>Sampling.</b> {@link #record} keeps one lookup in {@code samplePeriod} (a power of two),
 * chosen by the calling thread's {@link ThreadLocalRandom}: the unsampled path is one random draw
 * and a mask test, and allocates nothing. A sampled id is written into a fixed ring of
 * {@code bufferSize} slots; when more ids are sampled between two flushes than the ring holds, the
 * oldest are overwritten, so a flush sees at most {@code bufferSize} of the most recent samples.
 * Ids longer than {@value #MAX_ID_BYTES} bytes in UTF-8 are not recorded.
 *
 * <p><b>Decay (forward decay).</b> Each id's score is its sampled lookups, each weighted
 * {@code samplePeriod × 2^((t − landmark) / halfLife)} where {@code t} is the flush time and
 * {@code landmark} an epoch-millis value in {@code {wg:<cache>}:hot:landmark} shared by all agents
 * (set by the first flush). Relative to "now", a lookup made one half-life ago counts half of one
 * made now, so ordering by score is ordering by exponentially decayed request rate, and no flush
 * has to touch the ids it does not add to. Because weights grow with time, the flush that finds the
 * landmark more than {@link #RESCALE_AFTER_HALF_LIVES} half-lives old moves it forward by a whole
 * number {@code k} of half-lives and multiplies every score by {@code 2^-k} (one
 * {@code ZUNIONSTORE}, once per about ten hours for the whole fleet), dropping ids whose score falls
 * below {@value #MIN_SCORE}. Every flush then trims the set to its {@code capacity} highest scores.
 * Landmark check, rescale, {@code ZINCRBY}s and trim run as one script: one round trip, atomic.
 *
 * <p><b>Rates.</b> The same script keeps {@code {wg:<cache>}:hot:meta}: {@code halfLifeMs},
 * {@code samplePeriod} (a score grows in steps of it) and {@code since}, the epoch millis the
 * observation began (set by the flush that finds no hot set, left alone by the others). With them
 * a reader turns scores into request rates: {@code score × 2^(−(now − landmark) / halfLife)} is the
 * decayed count of lookups at {@code now}, about
 * {@code rate × (halfLife / ln 2) × (1 − 2^(−(now − since) / halfLife))} for a steady rate.
 *
 * <p><b>Bound.</b> A flush sends at most about {@value #MAX_IDS_PER_FLUSH} distinct ids: beyond
 * that, ids sampled less often than a threshold are sent with a probability proportional to
 * their count and an increment of the threshold, so every score keeps its expectation
 * ({@link #bound}).
 *
 * <p>Thread-safe: {@link #record} from any thread, {@link #flush} from one thread at a time.
 */
public final class HotKeys {

  /** The default sampling period: one lookup in 16 is recorded. */
  public static final int DEFAULT_SAMPLE_PERIOD = 16;
  /** The default ring size: the most samples one flush sends. */
  public static final int DEFAULT_BUFFER_SIZE = 4096;
  /**
   * The most distinct ids one flush sends ({@code ZINCRBY}s on the cache's control slot): at 500
   * pods flushing every 5 s, 25,600 a second instead of up to 409,600 (ControlSlotLoadIT).
   */
  public static final int MAX_IDS_PER_FLUSH = 256;
  /** The default bound of the hot set. */
  public static final int DEFAULT_CAPACITY = 50_000;
  /** The default half-life of a lookup's weight. */
  public static final Duration DEFAULT_HALF_LIFE = Duration.ofMinutes(10);
  /** How often {@link io.warmgate.agent.fleet.FleetServices} flushes. */
  public static final Duration FLUSH_INTERVAL = Duration.ofSeconds(5);
  /** The landmark moves forward once it is this many half-lives old (weights stay below 2^64). */
  public static final int RESCALE_AFTER_HALF_LIVES = 64;
  /** Ids whose score falls below this at a rescale are dropped. */
  static final double MIN_SCORE = 0.001;
  /**
   * Ids longer than this in UTF-8 are not recorded, which bounds the memory of the hot set; the
   * same as the cache's default longest id ({@code TieredCache.DEFAULT_MAX_ID_BYTES}).
   */
  public static final int MAX_ID_BYTES = 512;

  /**
   * KEYS = hot, landmark, meta; ARGV = now ms, half-life ms, rescale after (half-lives), capacity,
   * min score, sample period, then (id, increment before weighting) pairs. Returns the landmark used. A hot set,
   * landmark or meta of another type would fail every flush, so it is replaced; a landmark that is
   * not a number is reset to now. The observation starts over ({@code since} = now) when there is
   * no hot set (the first flush, or the set was deleted, replaced or decayed to nothing); a hot set
   * without a {@code since} in decimal epoch millis (built by agents that did not write one) is
   * observed since its landmark, the first flush's time unless a rescale moved it.
   */
  private static final String FLUSH = """
      for k, want in ipairs({'zset', 'string', 'hash'}) do
        local t = redis.call('TYPE', KEYS[k]).ok
        if t ~= want and t ~= 'none' then
          redis.call('DEL', KEYS[k])
        end
      end
      local now = tonumber(ARGV[1])
      local half = tonumber(ARGV[2])
      local landmark = tonumber(redis.call('GET', KEYS[2]))
      if not landmark then
        landmark = now
        redis.call('SET', KEYS[2], string.format('%d', landmark))
      end
      local since = redis.call('HGET', KEYS[3], 'since')
      if redis.call('EXISTS', KEYS[1]) == 0 then
        redis.call('HSET', KEYS[3], 'since', ARGV[1])
      elseif not since or not string.match(since, '^%d+$') then
        redis.call('HSET', KEYS[3], 'since', string.format('%d', math.min(now, landmark)))
      end
      redis.call('HSET', KEYS[3], 'halfLifeMs', ARGV[2], 'samplePeriod', ARGV[6])
      local age = (now - landmark) / half
      if age > tonumber(ARGV[3]) then
        local shift = math.floor(age)
        redis.call('ZUNIONSTORE', KEYS[1], 1, KEYS[1], 'WEIGHTS', string.format('%.17g', 2 ^ -shift))
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
        landmark = landmark + shift * half
        redis.call('SET', KEYS[2], string.format('%d', landmark))
        age = (now - landmark) / half
      end
      local weight = 2 ^ age
      for i = 7, #ARGV, 2 do
        redis.call('ZINCRBY', KEYS[1], string.format('%.17g', tonumber(ARGV[i + 1]) * weight), ARGV[i])
      end
      local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
      if excess > 0 then
        redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
      end
      return string.format('%d', landmark)
      """;

  private final int sampleMask;
  private final int samplePeriod;
  private final AtomicReferenceArray<String> ring;
  private final int ringMask;
  private final AtomicLong next = new AtomicLong();
  private final int capacity;
  private final Duration halfLife;

  /** Creates a tracker with the defaults. */
  public HotKeys() {
    this(DEFAULT_SAMPLE_PERIOD, DEFAULT_BUFFER_SIZE, DEFAULT_CAPACITY, DEFAULT_HALF_LIFE);
  }

  /**
   * Creates a tracker.
   *
   * @param samplePeriod record one lookup in this many: a power of two, 1 records every lookup
   * @param bufferSize samples kept between flushes: a power of two
   * @param capacity the most ids the hot set keeps
   * @param halfLife the time after which a lookup weighs half
   * @throws IllegalArgumentException naming the parameter if one is out of range
   */
  public HotKeys(int samplePeriod, int bufferSize, int capacity, Duration halfLife) {
    requirePowerOfTwo("samplePeriod", samplePeriod);
    requirePowerOfTwo("bufferSize", bufferSize);
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    Objects.requireNonNull(halfLife, "halfLife");
    if (halfLife.toMillis() <= 0) {
      throw new IllegalArgumentException("halfLife must be at least 1 ms: " + halfLife);
    }
    this.samplePeriod = samplePeriod;
    this.sampleMask = samplePeriod - 1;
    this.ring = new AtomicReferenceArray<>(bufferSize);
    this.ringMask = bufferSize - 1;
    this.capacity = capacity;
    this.halfLife = halfLife;
  }

  /** Returns the sampling period: one lookup in this many is recorded. */
  public int samplePeriod() {
    return samplePeriod;
  }

  /** Records a lookup of {@code id} with probability {@code 1 / samplePeriod}; null is ignored. */
  public void record(String id) {
    if ((ThreadLocalRandom.current().nextInt() & sampleMask) == 0) {
      recordSampled(id);
    }
  }

  /** Records a lookup of each of {@code ids} with probability {@code 1 / samplePeriod} each. */
  public void recordAll(Iterable<String> ids) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (String id : ids) {
      if ((random.nextInt() & sampleMask) == 0) {
        recordSampled(id);
      }
    }
  }

  private void recordSampled(String id) {
    if (id != null && !id.isEmpty() && KeySpace.fitsUtf8(id, MAX_ID_BYTES)) {
      ring.set((int) (next.getAndIncrement() & ringMask), id);
    }
  }

  /** Removes the buffered samples and returns how often each id was sampled. */
  Map<String, Integer> drain() {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < ring.length(); i++) {
      String id = ring.getAndSet(i, null);
      // The cache refuses ids that are not well-formed Unicode; UTF-8 would record them as '?'.
      if (id != null && KeySpace.unpairedSurrogate(id) < 0) {
        counts.merge(id, 1, Integer::sum);
      }
    }
    return counts;
  }

  /**
   * Adds the samples since the last flush to the hot set of {@code keys}' cache at the time
   * {@code clock} tells, in one script. Samples whose flush fails are lost: the hot set is an
   * estimate, and the next flush carries newer ones.
   *
   * @param connection where the hot set lives
   * @return how many distinct ids were sent (0 sends nothing)
   * @throws io.lettuce.core.RedisException if Valkey failed or did not answer in time
   */
  public int flush(ValkeyConnection<String> connection, KeySpace keys, InstantSource clock) {
    Map<String, Double> increments = bound(drain(), MAX_IDS_PER_FLUSH,
        ThreadLocalRandom.current());
    if (increments.isEmpty()) {
      return 0;
    }
    List<String> args = new ArrayList<>(6 + 2 * increments.size());
    args.add(Long.toString(clock.millis()));
    args.add(Long.toString(halfLife.toMillis()));
    args.add(Integer.toString(RESCALE_AFTER_HALF_LIVES));
    args.add(Integer.toString(capacity));
    args.add(Double.toString(MIN_SCORE));
    args.add(Integer.toString(samplePeriod));
    for (Map.Entry<String, Double> e : increments.entrySet()) {
      args.add(e.getKey());
      args.add(Double.toString(e.getValue() * samplePeriod));
    }
    connection.sync().eval(FLUSH, ScriptOutputType.VALUE,
        new String[] {keys.hotKey(), keys.hotLandmarkKey(), keys.hotMetaKey()},
        args.toArray(String[]::new));
    return increments.size();
  }

  /**
   * At most about {@code max} of {@code counts}, with increments whose expectation is each id's
   * count (threshold sampling): with a threshold {@code t} chosen so that the expected number
   * kept is {@code max}, an id sampled {@code c >= t} times is kept with increment {@code c}, one
   * sampled fewer times with probability {@code c / t} and increment {@code t}. So hot ids are
   * always sent exactly, and the hot set's scores stay unbiased for the tail too.
   */
  static Map<String, Double> bound(Map<String, Integer> counts, int max, Random random) {
    Map<String, Double> out = new HashMap<>();
    if (counts.size() <= max) {
      counts.forEach((id, c) -> out.put(id, (double) c));
      return out;
    }
    double low = 0;
    double high = 0;
    for (int c : counts.values()) {
      high = Math.max(high, c);
    }
    high *= counts.size(); // keeps fewer than one id expected
    for (int i = 0; i < 60; i++) {
      double t = (low + high) / 2;
      double kept = 0;
      for (int c : counts.values()) {
        kept += Math.min(1, c / t);
      }
      if (kept > max) {
        low = t;
      } else {
        high = t;
      }
    }
    double t = high;
    counts.forEach((id, c) -> {
      if (c >= t) {
        out.put(id, (double) c);
      } else if (random.nextDouble() * t < c) {
        out.put(id, t);
      }
    });
    return out;
  }

  /**
   * {@link #flush(ValkeyConnection, KeySpace, InstantSource)} over a standalone connection opened
   * elsewhere, such as the operator's tests that play agents.
   */
  public int flush(StatefulRedisConnection<String, String> connection, KeySpace keys,
      InstantSource clock) {
    return flush(ValkeyConnection.wrap(connection), keys, clock);
  }

  private static void requirePowerOfTwo(String name, int value) {
    if (value <= 0 || Integer.bitCount(value) != 1) {
      throw new IllegalArgumentException(name + " must be a positive power of two (1, 2, 4, ...): "
          + value);
    }
  }
}
