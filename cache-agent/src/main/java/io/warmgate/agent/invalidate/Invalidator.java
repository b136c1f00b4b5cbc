package io.warmgate.agent.invalidate;

import io.lettuce.core.Range;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.agent.registry.AgentInfo;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Invalidates ids for every pod of a cache: deletes their values in every schema key space whose
 * values may still live (those of {@code {wg:<cache>}:spaces}, where each agent's heartbeat keeps
 * its own for l2Ttl after it last ran, the schema hashes of the live agents in the registry, and
 * this agent's own), then appends them to
 * the invalidation stream, which every pod's {@link InvalidationListener} reads to drop them from
 * its in-process tier. Deleting first means a pod that drops an id and looks it up again does not
 * find the old value in L2.
 *
 * <p>A load that read the origin before the change and writes after the deletion would put the
 * old value back. The caller runs {@link #invalidateReadBefore} once such a load must have ended
 * ({@code FleetServices} does, one lock TTL later: loads hold a lease or lock that long at most).
 * It deletes only values whose origin read began before the first pass, so the value a pod read
 * again after the invalidation stays, and a changed id costs the origin one read, not two.
 */
public final class Invalidator {

  /**
   * KEYS = a value key; ARGV = epoch millis. Deletes the value if its origin read began before
   * ARGV[1] ({@link io.warmgate.agent.l2.Envelope}: the time is the 8 bytes after the schema hash),
   * or if it is not an envelope this version reads. 1 if deleted.
   */
  private static final String DELETE_READ_BEFORE = """
      local v = redis.call('GET', KEYS[1])
      if not v then return 0 end
      local n = string.len(v) >= 5 and string.byte(v, 5) or 0
      if string.sub(v, 1, 3) == 'wg\1' and string.len(v) >= 13 + n then
        local t = 0
        for i = 6 + n, 13 + n do t = t * 256 + string.byte(v, i) end
        if t >= tonumber(ARGV[1]) then return 0 end
      end
      redis.call('UNLINK', KEYS[1])
      return 1
      """;

  private final ValkeyConnection<String> valkey;
  private final KeySpace keys;
  private final InvalidationLog log;
  private final InstantSource clock;
  private final Duration timeout;
  /** Schema hash → the latest expiry of a live registry entry seen with it. */
  private final Map<String, Long> seenUntil = new ConcurrentHashMap<>();

  /**
   * Creates the invalidator of {@code keys}' cache.
   *
   * @param timeout the bound of the whole call
   */
  public Invalidator(ValkeyConnection<String> valkey, KeySpace keys, InstantSource clock,
      Duration timeout) {
    this.valkey = Objects.requireNonNull(valkey, "valkey");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.log = new InvalidationLog(keys);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * Invalidates {@code ids}.
   *
   * @return the schema hashes whose values were deleted
   * @throws IllegalStateException if Valkey did not complete it within the timeout; the ids may
   *     be invalidated in part, and calling again is harmless
   */
  public Set<String> invalidate(Collection<String> ids) {
    List<String> distinct = List.copyOf(new LinkedHashSet<>(ids));
    if (distinct.isEmpty()) {
      return Set.of();
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> hashes = liveKeySpaces();
    List<RedisFuture<Long>> deletions = new ArrayList<>(hashes.size() * distinct.size());
    for (String hash : hashes) {
      KeySpace space = keys.withSchemaHash(hash);
      for (String id : distinct) {
        deletions.add(valkey.async().unlink(space.valueKey(id)));
      }
    }
    for (RedisFuture<Long> deletion : deletions) {
      await(deletion, deadline);
    }
    append(distinct);
    return hashes;
  }

  /**
   * The second pass of invalidations: for each id, the time its first pass began (this pod's
   * clock, as the values' read times are). Deletes, in every live key space, the value of each id
   * whose origin read began before its first pass, the old value a slow load wrote back, and tells
   * every pod to drop those ids.
   *
   * @return the ids whose value was deleted again
   * @throws IllegalStateException if Valkey did not complete it within the timeout
   */
  public Set<String> invalidateReadBefore(Map<String, Long> firstPassMillis) {
    if (firstPassMillis.isEmpty()) {
      return Set.of();
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> checked = new ArrayList<>();
    List<RedisFuture<Long>> deletions = new ArrayList<>();
    Set<String> hashes = liveKeySpaces();
    for (String hash : hashes) {
      KeySpace space = keys.withSchemaHash(hash);
      firstPassMillis.forEach((id, since) -> {
        checked.add(id);
        deletions.add(valkey.async().eval(DELETE_READ_BEFORE, ScriptOutputType.INTEGER,
            new String[] {space.valueKey(id)}, Long.toString(since)));
      });
    }
    Set<String> deleted = new LinkedHashSet<>();
    for (int i = 0; i < deletions.size(); i++) {
      Long n = await(deletions.get(i), deadline);
      if (n != null && n > 0) {
        deleted.add(checked.get(i));
      }
    }
    if (!deleted.isEmpty()) {
      append(List.copyOf(deleted));
    }
    return deleted;
  }

  private Set<String> liveKeySpaces() {
    try {
      return liveSchemaHashes();
    } catch (RedisException e) {
      throw failed("read the live key spaces", e);
    }
  }

  private void append(List<String> ids) {
    try {
      log.append(valkey.sync(), ids, clock.millis());
    } catch (RedisException e) {
      throw failed("append to the invalidation stream", e);
    }
  }

  private IllegalStateException failed(String what, RedisException e) {
    return new IllegalStateException("Valkey did not " + what + " (" + e.getMessage()
        + ") while invalidating in cache '" + keys.cacheName() + "': call again", e);
  }

  /**
   * The schema key spaces whose values may still live, and this agent's own: each of
   * {@code {wg:<cache>}:spaces} (every agent records its own there, until its values have
   * expired: so a canary whose agents stopped or died still counts within l2Ttl), and the hash
   * of each live registry entry (agents of versions that do not record their key space). A hash
   * seen before counts until the expiry it had then, even when Valkey no longer holds it: a Valkey
   * restarted empty loses both keys until the agents' next heartbeats, and an invalidation
   * meanwhile must still reach their key spaces.
   */
  Set<String> liveSchemaHashes() {
    return liveSchemaHashes(true);
  }

  private Set<String> liveSchemaHashes(boolean readRegistry) {
    Set<String> hashes = new TreeSet<>();
    hashes.add(keys.schemaHash());
    long now = clock.millis();
    List<ScoredValue<String>> spaces = valkey.sync().zrangebyscoreWithScores(keys.spacesKey(),
        Range.from(Range.Boundary.including(now), Range.Boundary.unbounded()));
    for (ScoredValue<String> space : spaces) {
      remember(space.getValue(), (long) space.getScore());
    }
    Map<String, String> agents = readRegistry ? valkey.sync().hgetall(keys.agentsKey()) : Map.of();
    for (String json : agents.values()) {
      try {
        AgentInfo agent = AgentInfo.fromJson(json);
        if (agent.isLiveAt(now)) {
          remember(agent.schemaHash(), agent.expiresAt());
        }
      } catch (IllegalArgumentException e) {
        // An entry of an incompatible agent: nothing to delete.
      }
    }
    seenUntil.values().removeIf(expiry -> expiry < now);
    hashes.addAll(seenUntil.keySet());
    return hashes;
  }

  private void remember(String schemaHash, long until) {
    try {
      seenUntil.merge(keys.withSchemaHash(schemaHash).schemaHash(), until, Math::max);
    } catch (IllegalArgumentException e) {
      // Not a schema hash, so no key space has it: nothing to delete.
    }
  }

  /**
   * Reads {@code {wg:<cache>}:spaces} to remember the key spaces (the fleet services call it with
   * each heartbeat), so that the first invalidation after Valkey lost it still knows them. It does
   * not read the registry: at hundreds of pods, one {@code HGETALL} of every entry per pod and
   * heartbeat was most of the control slot's outbound bytes.
   */
  public void observeRegistry() {
    liveSchemaHashes(false);
  }

  private Long await(RedisFuture<Long> deletion, long deadlineNanos) {
    try {
      return deletion.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while invalidating in cache '"
          + keys.cacheName() + "'", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Valkey did not delete the values within " + timeout
          + " while invalidating in cache '" + keys.cacheName() + "': call again", e);
    }
  }
}
