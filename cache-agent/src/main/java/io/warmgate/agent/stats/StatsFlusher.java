package io.warmgate.agent.stats;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.micrometer.core.instrument.MeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds what a cache counted since the previous flush to its namespace's statistics in Valkey.
 *
 * <p>Each {@link #flush()} reads the cache's cumulative Micrometer counters (see
 * {@link CacheCounters} for which meter feeds which field), subtracts what earlier flushes sent,
 * and sends the non-zero deltas with {@code HINCRBY} to {@code {wg:<cache>}:stats:<hash>} (expiry
 * renewed to 2 × l2Ttl) and to the bucket {@code {wg:<cache>}:stats:<hash>:<bucket>} of the flush
 * time (expiry 1 h), plus {@code PFADD} of the ids written to L2 since then into
 * {@code {wg:<cache>}:keys:<hash>} (expiry renewed to l2Ttl). It is one script, so one round trip
 * applied atomically (ids beyond {@value #IDS_PER_SCRIPT} go in further scripts of the same
 * pipeline). A flush with nothing to add sends nothing.
 *
 * <p>If a flush fails, its deltas and ids are kept and go with the next one; a flush that timed out
 * after the server applied it is then counted twice (at-least-once). Deltas land in the bucket of
 * the flush that sent them. Not thread-safe: call it from one scheduler thread.
 */
public final class StatsFlusher {

  private static final Logger log = LoggerFactory.getLogger(StatsFlusher.class);

  /** How often {@link io.warmgate.agent.fleet.FleetServices} flushes. */
  public static final Duration FLUSH_INTERVAL = Duration.ofSeconds(5);
  /** Width of a stats bucket. */
  public static final Duration BUCKET_WIDTH = Duration.ofSeconds(10);
  /** Expiry of a stats bucket. */
  public static final Duration BUCKET_TTL = Duration.ofHours(1);

  static final int IDS_PER_SCRIPT = 10_000;

  /**
   * KEYS = stats, bucket, keys; ARGV = stats TTL ms, bucket TTL ms, keys TTL ms, number of
   * (field, delta) pairs, the pairs, then ids for the HyperLogLog (PFADD in chunks, because Lua's
   * unpack has a stack limit). Checks come before any write, because a script that fails halfway
   * keeps its earlier writes and the retried deltas would count twice: a key of another type is
   * deleted, a counter that is not an integer (or would overflow) restarts at its delta. Returns
   * how many such repairs it made.
   */
  private static final String FLUSH = """
      local repaired = 0
      for k = 1, 2 do
        local t = redis.call('TYPE', KEYS[k]).ok
        if t ~= 'hash' and t ~= 'none' then
          redis.call('DEL', KEYS[k])
          repaired = repaired + 1
        end
      end
      if redis.call('EXISTS', KEYS[3]) == 1 then
        local count = redis.pcall('PFCOUNT', KEYS[3])
        if type(count) == 'table' and count.err then
          redis.call('DEL', KEYS[3])
          repaired = repaired + 1
        end
      end
      local n = tonumber(ARGV[4])
      local i = 5
      for _ = 1, n do
        for k = 1, 2 do
          local r = redis.pcall('HINCRBY', KEYS[k], ARGV[i], ARGV[i + 1])
          if type(r) == 'table' and r.err then
            redis.call('HSET', KEYS[k], ARGV[i], ARGV[i + 1])
            repaired = repaired + 1
          end
        end
        i = i + 2
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[1])
      redis.call('PEXPIRE', KEYS[2], ARGV[2])
      local chunk = {}
      for j = i, #ARGV do
        chunk[#chunk + 1] = ARGV[j]
        if #chunk == 1000 then
          redis.call('PFADD', KEYS[3], unpack(chunk))
          chunk = {}
        end
      end
      if #chunk > 0 then
        redis.call('PFADD', KEYS[3], unpack(chunk))
      end
      redis.call('PEXPIRE', KEYS[3], ARGV[3])
      return repaired
      """;

  private final ValkeyConnection<String> connection;
  private final KeySpace keys;
  private final CacheCounters counters;
  private final WrittenKeys written;
  private final Duration l2Ttl;
  private final InstantSource clock;
  private final Duration timeout;
  private final long[] sent = new long[CacheCounters.STATS.size()];

  /**
   * Creates a flusher of the cache {@code keys.cacheName()} whose meters are in {@code registry}.
   * Counts made before the first flush are included in it.
   *
   * @param written where the cache records the ids it writes to L2
   * @param l2Ttl the cache's L2 TTL, which sets the expiry of the stats and keys entries
   * @param timeout how long a flush waits for Valkey
   */
  public StatsFlusher(ValkeyConnection<String> connection, KeySpace keys,
      MeterRegistry registry, WrittenKeys written, Duration l2Ttl, InstantSource clock,
      Duration timeout) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.counters = new CacheCounters(Objects.requireNonNull(registry, "registry"), keys.cacheName());
    this.written = Objects.requireNonNull(written, "written");
    this.l2Ttl = Objects.requireNonNull(l2Ttl, "l2Ttl");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Sends the deltas since the last successful flush and the ids written since then.
   *
   * @return whether anything was sent
   * @throws IllegalStateException if Valkey failed or did not answer in time (the data is kept for
   *     the next flush)
   */
  public boolean flush() {
    long[] now = counters.read();
    List<String> args = new ArrayList<>();
    args.add(Long.toString(2 * l2Ttl.toMillis()));
    args.add(Long.toString(BUCKET_TTL.toMillis()));
    args.add(Long.toString(l2Ttl.toMillis()));
    args.add(null); // number of pairs, set below
    int pairs = 0;
    for (int i = 0; i < now.length; i++) {
      long delta = now[i] - sent[i];
      if (delta > 0) {
        args.add(CacheCounters.STATS.get(i).field());
        args.add(Long.toString(delta));
        pairs++;
      }
    }
    args.set(3, Integer.toString(pairs));
    List<String> ids = written.drain();
    if (pairs == 0 && ids.isEmpty()) {
      return false;
    }
    long nowMillis = clock.millis();
    long second = Math.floorDiv(nowMillis, 1000);
    long bucket = second - Math.floorMod(second, BUCKET_WIDTH.toSeconds());
    String[] scriptKeys = {keys.statsKey(), keys.statsBucketKey(bucket), keys.keysWrittenKey()};
    List<RedisFuture<Long>> sentScripts = new ArrayList<>();
    int from = 0;
    do {
      int to = Math.min(ids.size(), from + IDS_PER_SCRIPT);
      List<String> scriptArgs = new ArrayList<>(args);
      scriptArgs.addAll(ids.subList(from, to));
      sentScripts.add(connection.async().eval(FLUSH, ScriptOutputType.INTEGER, scriptKeys,
          scriptArgs.toArray(String[]::new)));
      // Later scripts only carry ids.
      args = new ArrayList<>(args.subList(0, 4));
      args.set(3, "0");
      from = to;
    } while (from < ids.size());
    long repaired = 0;
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (RedisFuture<Long> f : sentScripts) {
        Long n = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        repaired += n == null ? 0 : n;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      written.restore(ids);
      throw new IllegalStateException("stats flush of " + keys + " was interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      written.restore(ids);
      throw new IllegalStateException("stats flush of " + keys + " failed: " + e, e);
    }
    if (repaired > 0) {
      log.warn("cache '{}': replaced {} stats entries under {} that were of another type or not "
          + "integers", keys.cacheName(), repaired, keys.statsKey());
    }
    for (int i = 0; i < now.length; i++) {
      sent[i] = Math.max(sent[i], now[i]);
    }
    return true;
  }
}
