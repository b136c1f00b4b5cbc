package io.warmgate.gateway.stream;

import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.warmgate.valkey.TokenLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Valkey side of coalescing: joins a key's current run or starts one, hands the upstream lock
 * over, and appends entries, each step one atomic Lua script over the keys of {@link StreamKeys}.
 * Every script's keys share one hash tag, so on a cluster each runs on the primary of that one
 * slot; the burst flags live in other slots and are only ever read or written one key per command.
 *
 * <p>Every write of a producer is <em>fenced</em>: it happens only while the lock holds the
 * producer's token and the state still names its run, so a producer that lost its lock (paused,
 * partitioned, killed and restarted) can never add an entry. Appends are also <em>indexed</em>: the
 * state's {@code next} counts the chunks in the stream; an append of a lower index is dropped as a
 * duplicate, a higher one refused as a gap. Thread-safe; every method is non-blocking.
 */
public final class RunStore {

  /** How a request relates to its key's run. */
  public record Join(String run, String status, boolean producer) {
    /** True when another pod is just starting a run; ask again shortly. */
    public boolean busy() {
      return run.isEmpty();
    }
  }

  /** Outcome of a takeover attempt by a reader whose run's lock may have expired. */
  public enum Takeover {
    /** The caller now holds the lock and must produce from the returned index. */
    ACQUIRED,
    /** A live producer holds the lock. */
    HELD,
    /** The run is complete or failed; its terminal entry is (or was) in the stream. */
    TERMINAL,
    /** The run no longer exists (expired, or replaced after a failure). */
    GONE
  }

  /** Outcome of a takeover attempt, with the index to produce from when acquired. */
  public record TakeoverResult(Takeover outcome, long nextIndex) {}

  /** Outcome of one append. */
  public enum Append {
    /** Added to the stream. */
    APPENDED,
    /** Already in the stream (a takeover re-read it): dropped. */
    DUPLICATE,
    /** The caller no longer holds the lock of this run: stop producing. */
    LOST
  }

  private static final String JOIN = """
      local run = redis.call('HGET', KEYS[1], 'run')
      local status = redis.call('HGET', KEYS[1], 'status')
      if run and status ~= 'failed' then
        return {run, status, 0}
      end
      if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[1], 'run', ARGV[1], 'status', 'running', 'next', '0')
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return {ARGV[1], 'running', 1}
      end
      return {'', 'busy', 0}
      """;

  private static final String TAKEOVER = """
      if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then
        return {'gone', 0}
      end
      if redis.call('HGET', KEYS[1], 'status') ~= 'running' then
        return {'terminal', 0}
      end
      if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return {'acquired', tonumber(redis.call('HGET', KEYS[1], 'next'))}
      end
      return {'held', 0}
      """;

  private static final String APPEND = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('HGET', KEYS[2], 'run') ~= ARGV[2] then
        return -1
      end
      local nextIndex = tonumber(redis.call('HGET', KEYS[2], 'next'))
      local index = tonumber(ARGV[3])
      if index < nextIndex then
        return 0
      end
      if index > nextIndex then
        return redis.error_reply('chunk ' .. index .. ' would leave a gap after ' .. nextIndex)
      end
      redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[6], '*',
          'type', 'chunk', 'i', ARGV[3], 'event', ARGV[4], 'data', ARGV[5])
      redis.call('HSET', KEYS[2], 'next', index + 1)
      redis.call('PEXPIRE', KEYS[3], ARGV[7])
      redis.call('PEXPIRE', KEYS[2], ARGV[7])
      return 1
      """;

  private static final String FINISH = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('HGET', KEYS[2], 'run') ~= ARGV[2] then
        return 0
      end
      redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[8], '*',
          'type', ARGV[4], 'i', ARGV[3], 'event', '', 'data', ARGV[5])
      redis.call('HSET', KEYS[2], 'status', ARGV[6])
      redis.call('PEXPIRE', KEYS[3], ARGV[7])
      redis.call('PEXPIRE', KEYS[2], ARGV[7])
      redis.call('DEL', KEYS[1])
      return 1
      """;

  private static final String RENEW = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then
        return 0
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      redis.call('PEXPIRE', KEYS[2], ARGV[3])
      redis.call('PEXPIRE', KEYS[3], ARGV[3])
      return 1
      """;


  private final RedisClusterAsyncCommands<String, String> redis;
  private final long lockTtlMillis;
  private final long runningTtlMillis;
  private final int maxLen;

  /**
   * Creates a store over a shared (multiplexed) connection, to one server or to a cluster (each
   * script goes to the primary of its keys' slot); blocking reads use their own.
   *
   * @param lockTtl expiry of the upstream lock; a running run's keys live three times as long,
   *     refreshed by the producer, so a run whose producer died and that nobody takes over expires
   * @param streamCap most chunks of one response; the stream keeps one more entry, the terminal one
   */
  public RunStore(RedisClusterAsyncCommands<String, String> redis, Duration lockTtl, int streamCap) {
    this.redis = redis;
    this.lockTtlMillis = lockTtl.toMillis();
    this.runningTtlMillis = lockTtl.toMillis() * 3;
    this.maxLen = streamCap + 1;
  }

  /**
   * Joins the key's live run (running or done), or starts run {@code newRun} with the caller as
   * its producer when there is none or the last one failed.
   */
  public CompletableFuture<Join> join(StreamKeys keys, String newRun, String token) {
    return this.<List<Object>>eval(JOIN, ScriptOutputType.MULTI,
            new String[] {keys.state(), keys.lock()},
            newRun, token, Long.toString(lockTtlMillis), Long.toString(runningTtlMillis))
        .thenApply(r -> new Join((String) r.get(0), (String) r.get(1), ((Long) r.get(2)) == 1L));
  }

  /** Takes the lock of {@code run} if it is still running and its producer's lock expired. */
  public CompletableFuture<TakeoverResult> takeover(StreamKeys keys, String run, String token) {
    return this.<List<Object>>eval(TAKEOVER, ScriptOutputType.MULTI,
            new String[] {keys.state(), keys.lock()},
            run, token, Long.toString(lockTtlMillis), Long.toString(runningTtlMillis))
        .thenApply(r -> new TakeoverResult(
            Takeover.valueOf(((String) r.get(0)).toUpperCase(java.util.Locale.ROOT)), (Long) r.get(1)));
  }

  /** Appends chunk {@code index} of {@code run}, fenced by {@code token}; see the class contract. */
  public CompletableFuture<Append> append(
      StreamKeys keys, String run, String token, long index, String event, String data) {
    return this.<Long>eval(APPEND, ScriptOutputType.INTEGER,
            new String[] {keys.lock(), keys.state(), keys.stream(run)},
            token, run, Long.toString(index), event, data, Integer.toString(maxLen),
            Long.toString(runningTtlMillis))
        .thenApply(r -> r == 1L ? Append.APPENDED : r == 0L ? Append.DUPLICATE : Append.LOST);
  }

  /**
   * Appends the terminal entry, marks the run {@code done} (readable for {@code ttl}, the snapshot)
   * or {@code failed} (so the next request starts a new run), and releases the lock.
   *
   * @return false if the caller no longer held the lock, and nothing was written
   */
  public CompletableFuture<Boolean> finish(StreamKeys keys, String run, String token, long chunks,
      StreamEntry.Type type, String data, Duration ttl) {
    if (type == StreamEntry.Type.CHUNK) {
      throw new IllegalArgumentException("finish needs a terminal type, not " + type);
    }
    return this.<Long>eval(FINISH, ScriptOutputType.INTEGER,
            new String[] {keys.lock(), keys.state(), keys.stream(run)},
            token, run, Long.toString(chunks), type.wire(), data,
            type == StreamEntry.Type.DONE ? "done" : "failed",
            Long.toString(Math.max(1, ttl.toMillis())), Integer.toString(maxLen))
        .thenApply(r -> r == 1L);
  }

  /** Extends the lock and the run's keys; false if the caller no longer holds the lock. */
  public CompletableFuture<Boolean> renew(StreamKeys keys, String run, String token) {
    return this.<Long>eval(RENEW, ScriptOutputType.INTEGER,
            new String[] {keys.lock(), keys.state(), keys.stream(run)},
            token, Long.toString(lockTtlMillis), Long.toString(runningTtlMillis))
        .thenApply(r -> r == 1L);
  }

  /**
   * Gives the lock up without finishing the run, if the caller still holds it, so a reader in
   * another pod takes the run over at once instead of after the lock TTL.
   */
  public CompletableFuture<Boolean> release(StreamKeys keys, String token) {
    return this.<Long>eval(TokenLock.RELEASE, ScriptOutputType.INTEGER, new String[] {keys.lock()},
            token)
        .thenApply(r -> r == 1L);
  }

  /** Reads every entry of {@code run}'s stream (a snapshot or the chunks so far). */
  public CompletableFuture<List<StreamEntry>> readAll(StreamKeys keys, String run) {
    return redis.xrange(keys.stream(run), Range.create("-", "+")).toCompletableFuture()
        .thenApply(messages -> {
          List<StreamEntry> entries = new ArrayList<>(messages.size());
          messages.forEach(m -> entries.add(StreamEntry.decode(m.getId(), m.getBody())));
          return entries;
        });
  }

  /** True if a burst flag for {@code template}, or the global one, is up. */
  public CompletableFuture<Boolean> burstUp(String template) {
    // Two commands, not one EXISTS over both keys: they live in different cluster slots.
    CompletableFuture<Long> own = redis.exists(StreamKeys.burst(template)).toCompletableFuture();
    CompletableFuture<Long> global = redis.exists(StreamKeys.GLOBAL_BURST).toCompletableFuture();
    return own.thenCombine(global, (a, b) -> a + b > 0);
  }

  /** Raises the burst flag of {@code template} (null: every template) for {@code ttl}. */
  public CompletableFuture<Void> raiseBurst(String template, Duration ttl) {
    String key = template == null ? StreamKeys.GLOBAL_BURST : StreamKeys.burst(template);
    return redis.psetex(key, Math.max(1, ttl.toMillis()), "1").toCompletableFuture()
        .thenApply(ok -> null);
  }

  /** Lowers the burst flag of {@code template} (null: the global one). */
  public CompletableFuture<Void> clearBurst(String template) {
    String key = template == null ? StreamKeys.GLOBAL_BURST : StreamKeys.burst(template);
    return redis.del(key).toCompletableFuture().thenApply(n -> null);
  }

  /** The expiry of a running run's keys: three lock TTLs. */
  public Duration runningTtl() {
    return Duration.ofMillis(runningTtlMillis);
  }

  private <T> CompletableFuture<T> eval(String script, ScriptOutputType type, String[] keys,
      String... args) {
    return redis.<T>eval(script, type, keys, args).toCompletableFuture();
  }
}
