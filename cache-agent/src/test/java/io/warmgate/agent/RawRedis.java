package io.warmgate.agent;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.warmgate.agent.l2.Envelope;
import java.util.HashMap;
import java.util.Map;

/** A plain client for tests to look at what the cache wrote to Redis. */
public final class RawRedis implements AutoCloseable {

  private final RedisClient client;
  private final StatefulRedisConnection<String, byte[]> connection;

  public RawRedis(String uri) {
    client = RedisClient.create(uri);
    connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
  }

  public RedisCommands<String, byte[]> sync() {
    return connection.sync();
  }

  public Envelope envelope(String key, String schemaHash) {
    byte[] bytes = sync().get(key);
    return bytes == null ? null : Envelope.decode(bytes, schemaHash);
  }

  /** Calls per command since the last {@code CONFIG RESETSTAT}, e.g. {@code get -> 1}. */
  public Map<String, Long> commandCalls() {
    Map<String, Long> calls = new HashMap<>();
    for (String line : sync().info("commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        String rest = line.substring(line.indexOf("calls=") + 6);
        calls.put(name, Long.parseLong(rest.substring(0, rest.indexOf(','))));
      }
    }
    return calls;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }
}
