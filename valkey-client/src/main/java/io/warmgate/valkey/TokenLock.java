package io.warmgate.valkey;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.Objects;

/**
 * A lock in one Valkey key whose value is its holder's token: taken with {@code SET NX PX},
 * renewed and released only by the holder (compare-and-expire and compare-and-delete scripts), so
 * a holder whose lock lapsed and was taken by another never extends or deletes the other's. Used
 * by the preload worker's warm job lock, the change stream reader's lock and the stream gateway's
 * run lock.
 */
public final class TokenLock {

  /** KEYS = lock; ARGV = token, ttl ms. Sets the expiry if the token holds the lock: 1, else 0. */
  public static final String RENEW = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('PEXPIRE', KEYS[1], ARGV[2])
      end
      return 0
      """;
  /** KEYS = lock; ARGV = token. Deletes the lock if the token holds it: 1, else 0. */
  public static final String RELEASE = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then
        return redis.call('DEL', KEYS[1])
      end
      return 0
      """;

  private final String key;
  private final Duration ttl;

  /** A lock in {@code key} that lapses {@code ttl} after it was taken or last renewed. */
  public TokenLock(String key, Duration ttl) {
    this.key = Objects.requireNonNull(key, "key");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    if (ttl.toMillis() < 1) {
      throw new IllegalArgumentException("a lock's ttl must be at least 1 ms, got " + ttl);
    }
  }

  public String key() {
    return key;
  }

  /** Takes the lock for {@code token} if no one holds it; whether it did. */
  public boolean acquire(RedisClusterCommands<String, String> redis, String token) {
    return "OK".equals(redis.set(key, token, SetArgs.Builder.nx().px(ttl.toMillis())));
  }

  /** Extends the lock by its ttl if {@code token} still holds it; whether it did. */
  public boolean renew(RedisClusterCommands<String, String> redis, String token) {
    Long renewed = redis.eval(RENEW, ScriptOutputType.INTEGER, new String[] {key}, token,
        Long.toString(ttl.toMillis()));
    return renewed != null && renewed == 1L;
  }

  /** Deletes the lock if {@code token} holds it, so another takes it at once; whether it did. */
  public boolean release(RedisClusterCommands<String, String> redis, String token) {
    Long released = redis.eval(RELEASE, ScriptOutputType.INTEGER, new String[] {key}, token);
    return released != null && released == 1L;
  }
}
