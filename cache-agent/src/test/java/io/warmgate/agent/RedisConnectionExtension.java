package io.warmgate.agent;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.testing.RedisExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A string connection to the test's Redis, opened on an empty database before each test and closed
 * after it: {@code @RegisterExtension final RedisConnectionExtension valkey = new
 * RedisConnectionExtension(redis);} (register it after the {@link RedisExtension}).
 */
public final class RedisConnectionExtension implements BeforeEachCallback, AfterEachCallback {

  private final RedisExtension redis;
  private RedisClient client;
  private StatefulRedisConnection<String, String> connection;
  private ValkeyConnection<String> wrapped;

  public RedisConnectionExtension(RedisExtension redis) {
    this.redis = redis;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    redis.flushAll();
    client = RedisClient.create(redis.uri());
    // As the fleet services connect: commands fail at once while disconnected instead of queueing
    // (a queued flush would be applied after it was reported failed, and then sent again).
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
    connection = client.connect();
    wrapped = ValkeyConnection.wrap(connection);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    connection.close();
    client.shutdown();
  }

  /** The connection, as the fleet services take theirs. */
  public ValkeyConnection<String> connection() {
    return wrapped;
  }

  public RedisCommands<String, String> sync() {
    return connection.sync();
  }
}
