package io.warmgate.bench.fleet;

import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.l2.KeySpace;
import java.util.List;

/**
 * Opens a warm job in the layout of docs/valkey-layout.md over the hottest ids of the cache's hot
 * set: the job's id list, then the job hash in state {@code Open}. The preload benchmark seeds the
 * hot set with exactly the ids it wants loaded; which ids the operator chooses is the release
 * benchmark's subject.
 */
final class WarmJobOpener {

  private WarmJobOpener() {}

  /** Opens the job of {@code keys}' namespace for up to {@code hotSetSize} ids; returns the target. */
  static int open(RedisCommands<String, String> redis, KeySpace keys, int hotSetSize, int rate,
      int batchSize, long nowMillis) {
    List<String> hottest = redis.zrevrange(keys.hotKey(), 0, hotSetSize - 1L);
    redis.del(keys.warmIdsKey(), keys.warmJobKey());
    if (!hottest.isEmpty()) {
      redis.rpush(keys.warmIdsKey(), hottest.toArray(String[]::new));
    }
    redis.hset(keys.warmJobKey(), java.util.Map.of(
        "target", Integer.toString(hottest.size()),
        "rate", Integer.toString(rate),
        "batchSize", Integer.toString(batchSize),
        "state", "Open",
        "filled", "0", "errors", "0", "cursor", "0",
        "createdAt", Long.toString(nowMillis), "updatedAt", Long.toString(nowMillis)));
    return hottest.size();
  }
}
