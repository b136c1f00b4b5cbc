package io.warmgate.operator.gate;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.contract.valkey.WarmJobState;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Reads and opens Preload warm jobs ({@code T:warm:<hash>} and {@code T:warm:<hash>:ids}, see
 * docs/valkey-layout.md).
 *
 * <p>Opening is one Lua script, so it is atomic and idempotent: when the job exists in any state
 * it is left exactly as it is (a {@code Done} job is never reopened, progress never reset);
 * otherwise the hottest ids are snapshotted from {@code T:hot} and the job is created
 * {@code Open}. All keys share the cache's hash tag, so this works on a Valkey cluster too.
 */
final class WarmJobs {

  /** A job and its ids expire this long after their last update. */
  static final Duration EXPIRY = Duration.ofHours(1);
  /** Ids per origin batch the preloading agent loads, at most. */
  static final int MAX_BATCH_SIZE = 200;

  /**
   * How long one renewal of {@code keepWarmUntil} lets the agent keep the job's keys warm: the
   * gate renews it at every pass while it holds the canary, so keep-warm ends within this long
   * after the hold does.
   */
  static final Duration KEEP_WARM = Duration.ofMinutes(2);

  // KEYS: job, ids, hot. ARGV: target, rate, batchSize, now (epoch ms), expiry (ms), hot-set
  // description, revision (canary pod-template hash), keep-warm (ms), ceiling ('' = none).
  private static final String OPEN = """
      if redis.call('EXISTS', KEYS[1]) == 1 then
        return 0
      end
      redis.call('DEL', KEYS[2])
      local ids = {}
      if tonumber(ARGV[1]) > 0 then
        ids = redis.call('ZREVRANGE', KEYS[3], 0, tonumber(ARGV[1]) - 1)
      end
      for i = 1, #ids, 1000 do
        redis.call('RPUSH', KEYS[2], unpack(ids, i, math.min(i + 999, #ids)))
      end
      redis.call('HSET', KEYS[1], 'target', #ids, 'rate', ARGV[2], 'batchSize', ARGV[3],
        'state', 'Open', 'filled', 0, 'errors', 0, 'cursor', 0,
        'createdAt', ARGV[4], 'updatedAt', ARGV[4],
        'message', 'opened by the warmgate operator', 'hotSet', ARGV[6], 'revision', ARGV[7],
        'keepWarmUntil', tonumber(ARGV[4]) + tonumber(ARGV[8]))
      if ARGV[9] ~= '' then
        redis.call('HSET', KEYS[1], 'ceiling', ARGV[9])
      end
      redis.call('PEXPIRE', KEYS[1], ARGV[5])
      if #ids > 0 then
        redis.call('PEXPIRE', KEYS[2], ARGV[5])
      end
      return 1
      """;

  // KEYS: job. ARGV: keepWarmUntil (epoch ms). Only an existing job: never creates a bare hash.
  private static final String KEEP_WARM_SCRIPT = """
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      redis.call('HSET', KEYS[1], 'keepWarmUntil', ARGV[1])
      return 1
      """;

  // KEYS: job. ARGV: ceiling ('' = remove). Only an existing job: never creates a bare hash.
  private static final String CEILING_SCRIPT = """
      if redis.call('EXISTS', KEYS[1]) == 0 then
        return 0
      end
      if ARGV[1] == '' then
        redis.call('HDEL', KEYS[1], 'ceiling')
      else
        redis.call('HSET', KEYS[1], 'ceiling', ARGV[1])
      end
      return 1
      """;

  private WarmJobs() {}

  /**
   * The job of namespace {@code schemaHash}, or null when none exists.
   *
   * @throws io.lettuce.core.RedisException if Valkey cannot be read
   */
  static WarmJob read(RedisClusterCommands<String, String> valkey, ControlKeys keys, String schemaHash) {
    String key = keys.warmJob(schemaHash);
    Map<String, String> job = WrongType.naming(key, () -> valkey.hgetall(key));
    if (job.isEmpty()) {
      return null;
    }
    return new WarmJob(job.getOrDefault("state", WarmJobState.Open.name()), number(job.get("target")),
        number(job.get("filled")), number(job.get("errors")), job.get("message"),
        job.get("hotSet"), job.get("revision"), rate(job.get("rateInUse")));
  }

  /**
   * Opens the job of namespace {@code schemaHash} for the {@code target} hottest ids at
   * {@code rate} ids/s unless one exists.
   *
   * @param hotSet how {@code target} was chosen, kept in the job's {@code hotSet} field for the
   *     gate's messages
   * @param ceiling ids per second the origin budget leaves for the preload (the job's
   *     {@code ceiling}, under which the agent adapts its rate), or null without a budget
   * @return whether this call created it
   * @throws io.lettuce.core.RedisException if Valkey cannot be written
   */
  static boolean open(RedisClusterCommands<String, String> valkey, ControlKeys keys, String schemaHash,
      int target, int rate, String hotSet, String revision, Instant now, Double ceiling) {
    Long created = valkey.eval(OPEN, ScriptOutputType.INTEGER,
        new String[] {keys.warmJob(schemaHash), keys.warmIds(schemaHash), keys.hot()},
        String.valueOf(target), String.valueOf(rate),
        String.valueOf(Math.min(MAX_BATCH_SIZE, rate)), String.valueOf(now.toEpochMilli()),
        String.valueOf(EXPIRY.toMillis()), hotSet == null ? "" : hotSet,
        revision == null ? "" : revision, String.valueOf(KEEP_WARM.toMillis()),
        ceilingText(ceiling));
    return created != null && created == 1L;
  }

  /** {@link #open(RedisClusterCommands, ControlKeys, String, int, int, String, String, Instant,
   * Double) open} without an origin budget. */
  static boolean open(RedisClusterCommands<String, String> valkey, ControlKeys keys,
      String schemaHash, int target, int rate, String hotSet, String revision, Instant now) {
    return open(valkey, keys, schemaHash, target, rate, hotSet, revision, now, null);
  }

  /**
   * Sets the job's {@code ceiling} (removes it when null), if the job exists: the gate calls it at
   * every pass while it holds a canary whose job is open, as the steady rate moves.
   */
  static void ceiling(RedisClusterCommands<String, String> valkey, ControlKeys keys,
      String schemaHash, Double ceiling) {
    valkey.eval(CEILING_SCRIPT, ScriptOutputType.INTEGER,
        new String[] {keys.warmJob(schemaHash)}, ceilingText(ceiling));
  }

  private static String ceilingText(Double ceiling) {
    return ceiling == null ? "" : String.format(java.util.Locale.ROOT, "%.1f", ceiling);
  }

  /**
   * Removes the job of namespace {@code schemaHash} and its id list (not the agent's lock: an
   * agent still working it stops at its next write), so that the next pass opens a fresh one.
   */
  static void discard(RedisClusterCommands<String, String> valkey, ControlKeys keys, String schemaHash) {
    valkey.del(keys.warmJob(schemaHash), keys.warmIds(schemaHash));
  }

  /**
   * Asks the agents to keep the job's ids warm until {@code now} + {@link #KEEP_WARM}, if the job
   * exists: the gate calls it at every pass while it holds the canary.
   */
  static void keepWarm(RedisClusterCommands<String, String> valkey, ControlKeys keys, String schemaHash,
      Instant now) {
    valkey.eval(KEEP_WARM_SCRIPT, ScriptOutputType.INTEGER, new String[] {keys.warmJob(schemaHash)},
        String.valueOf(now.plus(KEEP_WARM).toEpochMilli()));
  }

  /**
   * Ends keep-warm now, if the job exists: the gate calls it when it releases the canary, whose
   * traffic then keeps its hot keys (refresh-ahead), so the agents stop reloading the job's ids
   * at once rather than up to {@link #KEEP_WARM} later.
   */
  static void endKeepWarm(RedisClusterCommands<String, String> valkey, ControlKeys keys,
      String schemaHash, Instant now) {
    valkey.eval(KEEP_WARM_SCRIPT, ScriptOutputType.INTEGER, new String[] {keys.warmJob(schemaHash)},
        String.valueOf(now.toEpochMilli()));
  }

  /** A non-negative finite decimal rate, or null when absent or malformed. */
  static Double rate(String value) {
    if (value == null) {
      return null;
    }
    try {
      double rate = Double.parseDouble(value);
      return Double.isFinite(rate) && rate >= 0 ? rate : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** A counter read from Valkey: absent, negative or malformed (an agent's bug) reads as 0. */
  static long number(String value) {
    if (value == null) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(value));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
