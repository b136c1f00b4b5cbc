package io.warmgate.agent.registry;

import io.lettuce.core.ScriptOutputType;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps this agent's entry in {@code {wg:<cache>}:agents} alive, and its schema key space in
 * {@code {wg:<cache>}:spaces} for as long as values it wrote may live. Each {@link #heartbeat()} writes
 * the entry with {@code expiresAt = now + }{@link #ENTRY_TTL}, renews the key's expiry and deletes
 * the entries of other agents that have been dead for over {@link #DEAD_RETENTION}, all in one
 * atomic script (the deletion once a minute for the whole fleet: the first heartbeat after
 * {@code {wg:<cache>}:agents:sweep} falls due); {@link #deregister()} removes the entry when the
 * agent stops cleanly. A pod that dies without deregistering is dead to readers 15 s after its
 * last heartbeat and gone from the hash one to two minutes later (or when the whole key expires, an hour after the last heartbeat of any agent).
 *
 * <p>Commands block the calling thread for at most the connection's command timeout and throw
 * Lettuce's exceptions. Not thread-safe: call it from one scheduler thread.
 */
public final class AgentRegistry {

  /** How often {@link io.warmgate.agent.fleet.FleetServices} calls {@link #heartbeat()}. */
  public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
  /** How long an entry lives after a heartbeat: three missed heartbeats make it dead. */
  public static final Duration ENTRY_TTL = Duration.ofSeconds(15);
  /** How long a dead entry is kept (so readers can tell "gone" from "dead") before any agent deletes it. */
  public static final Duration DEAD_RETENTION = Duration.ofSeconds(60);
  /** The expiry of the whole hash, renewed by each heartbeat. */
  public static final Duration KEY_TTL = Duration.ofHours(1);
  /**
   * The most key spaces {@code {wg:<cache>}:spaces} keeps (those expiring last): far more schema
   * hashes than one cache sees within an L2 TTL, a bound against a runaway writer.
   */
  public static final int MAX_SPACES = 1_024;
  /** The L2 TTL assumed by the constructor without one: {@code WarmGate}'s default. */
  public static final Duration DEFAULT_L2_TTL = Duration.ofMinutes(4);

  /**
   * KEYS = agents, spaces, sweep; ARGV = field, entry, now, dead retention ms, key TTL ms, schema
   * hash, the key space's expiry (epoch ms), most key spaces kept. Only a heartbeat that finds the
   * sweep due (its time in the sweep key passed, or none) reads the whole hash, once per dead
   * retention for the whole fleet: at hundreds of agents, a read of every entry per heartbeat
   * was most of the script's cost. Entries that do not parse are left
   * alone: they may come from a newer agent, and the key's expiry bounds them. A key of another
   * type holds no entry and would fail every heartbeat, so it is replaced.
   */
  private static final String HEARTBEAT = """
      for k, want in ipairs({'hash', 'zset', 'string'}) do
        local t = redis.call('TYPE', KEYS[k]).ok
        if t ~= want and t ~= 'none' then
          redis.call('DEL', KEYS[k])
        end
      end
      redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
      redis.call('PEXPIRE', KEYS[1], ARGV[5])
      local now = tonumber(ARGV[3])
      redis.call('ZADD', KEYS[2], 'GT', ARGV[7], ARGV[6])
      redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
      local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[8])
      if excess > 0 then
        redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
      end
      local ttl = tonumber(ARGV[7]) - now
      if redis.call('PTTL', KEYS[2]) < ttl then
        redis.call('PEXPIRE', KEYS[2], ttl)
      end
      local due = tonumber(redis.call('GET', KEYS[3]) or '')
      if due and now < due then
        return 0
      end
      redis.call('SET', KEYS[3], string.format('%d', now + tonumber(ARGV[4])), 'PX',
        2 * tonumber(ARGV[4]))
      local cutoff = now - tonumber(ARGV[4])
      local all = redis.call('HGETALL', KEYS[1])
      local removed = 0
      for i = 1, #all, 2 do
        local ok, entry = pcall(cjson.decode, all[i + 1])
        if ok and type(entry) == 'table' and type(entry.expiresAt) == 'number'
            and entry.expiresAt < cutoff then
          redis.call('HDEL', KEYS[1], all[i])
          removed = removed + 1
        end
      end
      return removed
      """;

  /**
   * KEYS[1] = agents; ARGV = field, startedAt. Deletes the entry only if it is this process's (same
   * start time), so a stopping process never removes the entry of a newer pod with the same name.
   */
  private static final String DEREGISTER = """
      local raw = redis.call('HGET', KEYS[1], ARGV[1])
      if not raw then return 0 end
      local ok, entry = pcall(cjson.decode, raw)
      if ok and type(entry) == 'table' and tostring(entry.startedAt) == ARGV[2] then
        return redis.call('HDEL', KEYS[1], ARGV[1])
      end
      return 0
      """;

  private final ValkeyConnection<String> connection;
  private final String key;
  private final String spacesKey;
  private final String sweepKey;
  private final AgentInfo identity;
  private final InstantSource clock;
  private final Duration l2Ttl;

  /**
   * Creates the registry entry of an agent whose values live at most {@link #DEFAULT_L2_TTL}.
   *
   * @see #AgentRegistry(ValkeyConnection, KeySpace, AgentInfo, InstantSource, Duration)
   */
  public AgentRegistry(ValkeyConnection<String> connection, KeySpace keys,
      AgentInfo identity, InstantSource clock) {
    this(connection, keys, identity, clock, DEFAULT_L2_TTL);
  }

  /**
   * Creates the registry entry of one agent; nothing is written before {@link #heartbeat()}.
   *
   * @param identity the entry to publish; its {@code expiresAt} is replaced at each heartbeat
   * @param l2Ttl the longest a value the agent writes lives in L2: its key space is kept in
   *     {@code {wg:<cache>}:spaces} that long after the entry could last have been alive
   * @throws IllegalArgumentException if {@code l2Ttl} is not positive
   */
  public AgentRegistry(ValkeyConnection<String> connection, KeySpace keys,
      AgentInfo identity, InstantSource clock, Duration l2Ttl) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.key = keys.agentsKey();
    this.spacesKey = keys.spacesKey();
    this.sweepKey = keys.agentsSweepKey();
    this.identity = Objects.requireNonNull(identity, "identity");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.l2Ttl = Objects.requireNonNull(l2Ttl, "l2Ttl");
    if (l2Ttl.isNegative() || l2Ttl.isZero()) {
      throw new IllegalArgumentException("l2Ttl must be positive: " + l2Ttl);
    }
  }

  /**
   * Writes this agent's entry, renews the key, records the agent's key space in
   * {@code {wg:<cache>}:spaces} until {@code now + }{@link #ENTRY_TTL}{@code  + l2Ttl} (a value
   * written while the entry is alive has expired by then) and, if no agent did in the last
   * {@link #DEAD_RETENTION}, deletes entries dead for over that long, all in one script.
   *
   * @return how many dead entries were deleted
   */
  public long heartbeat() {
    long now = clock.millis();
    long entryExpiry = now + ENTRY_TTL.toMillis();
    String entry = identity.expiringAt(entryExpiry).toJson();
    Long removed = connection.sync().eval(HEARTBEAT, ScriptOutputType.INTEGER,
        new String[] {key, spacesKey, sweepKey}, identity.field(), entry, Long.toString(now),
        Long.toString(DEAD_RETENTION.toMillis()), Long.toString(KEY_TTL.toMillis()),
        identity.schemaHash(), Long.toString(entryExpiry + l2Ttl.toMillis()),
        Integer.toString(MAX_SPACES));
    return removed == null ? 0 : removed;
  }

  /** Deletes this agent's entry if it is still its own; returns whether it did. */
  public boolean deregister() {
    Long n = connection.sync().eval(DEREGISTER, ScriptOutputType.INTEGER, new String[] {key},
        identity.field(), Long.toString(identity.startedAt()));
    return n != null && n == 1L;
  }

  /**
   * Reads every parseable entry of the cache, live or dead, for diagnostics and tests (the
   * operator reads the hash itself).
   */
  public List<AgentInfo> entries() {
    Map<String, String> all = connection.sync().hgetall(key);
    List<AgentInfo> out = new ArrayList<>(all.size());
    for (String json : all.values()) {
      try {
        out.add(AgentInfo.fromJson(json));
      } catch (IllegalArgumentException e) {
        // Written by an incompatible agent: not ours to interpret.
      }
    }
    return out;
  }
}
