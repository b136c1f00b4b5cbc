package io.warmgate.bench.fleet;

import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.l2.KeySpace;
import java.util.List;

/**
 * Opens a warm job the way the operator does (docs/valkey-layout.md): snapshot the hottest ids of
 * the cache's hot set into the job's id list, then write the job hash in state {@code Open}.
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
