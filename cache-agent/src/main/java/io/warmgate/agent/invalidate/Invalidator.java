package io.warmgate.agent.invalidate;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.ValkeyConnection;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Invalidates ids for every pod of a cache: deletes their values in every live schema key space
 * (the schema hashes of the agents in the registry, and this agent's own), then appends them to
 * the invalidation stream, which every pod's {@link InvalidationListener} reads to drop them from
 * its in-process tier. Deleting first means a pod that drops an id and looks it up again does not
 * find the old value in L2.
 *
 * <p>A load that read the origin before the change and writes after the deletion would put the
 * old value back. The caller runs the invalidation a second time once such a load must have
 * ended ({@code FleetServices} does, one lock TTL later: loads hold a lease or lock that long at
 * most), which bounds that race.
 */
public final class Invalidator {

  private final ValkeyConnection<String> valkey;
  private final KeySpace keys;
  private final InvalidationLog log;
  private final InstantSource clock;
  private final Duration timeout;

  /**
   * Creates the invalidator of {@code keys}' cache.
   *
   * @param timeout the bound of the whole call
   */
  public Invalidator(ValkeyConnection<String> valkey, KeySpace keys, InstantSource clock,
      Duration timeout) {
    this.valkey = Objects.requireNonNull(valkey, "valkey");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.log = new InvalidationLog(keys.invalidationsKey());
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
    Set<String> hashes;
    try {
      hashes = liveSchemaHashes();
    } catch (RedisException e) {
      throw failed("read the live key spaces", e);
    }
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
    try {
      log.append(valkey.sync(), distinct, clock.millis());
    } catch (RedisException e) {
      throw failed("append to the invalidation stream", e);
    }
    return hashes;
  }

  private IllegalStateException failed(String what, RedisException e) {
    return new IllegalStateException("Valkey did not " + what + " (" + e.getMessage()
        + ") while invalidating in cache '" + keys.cacheName() + "': call again", e);
  }

  /** The schema hashes of the live agents of the cache, and this agent's own. */
  Set<String> liveSchemaHashes() {
    Set<String> hashes = new TreeSet<>();
    hashes.add(keys.schemaHash());
    long now = clock.millis();
    Map<String, String> agents = valkey.sync().hgetall(keys.agentsKey());
    for (String json : agents.values()) {
      try {
        AgentInfo agent = AgentInfo.fromJson(json);
        if (agent.isLiveAt(now)) {
          hashes.add(keys.withSchemaHash(agent.schemaHash()).schemaHash());
        }
      } catch (IllegalArgumentException e) {
        // An entry of an incompatible agent, or a schema hash no key space has: nothing to delete.
      }
    }
    return hashes;
  }

  private void await(RedisFuture<Long> deletion, long deadlineNanos) {
    try {
      deletion.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
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
