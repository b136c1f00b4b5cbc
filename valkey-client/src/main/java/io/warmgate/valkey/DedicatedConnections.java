package io.warmgate.valkey;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Opens connections of their own to single nodes of an endpoint, with its TLS, CA, credentials
 * and command timeout, for commands that hold the connection they run on. They do not reconnect
 * by themselves: after an outage the node may no longer be the one wanted, so the caller opens
 * another. Thread-safe.
 */
final class DedicatedConnections<V> {

  private final ValkeyEndpoint endpoint;
  private final RedisCodec<String, V> codec;
  private final ClientResources resources;
  private final Duration commandTimeout;
  /** Created on first use: most users of a {@link ValkeyConnection} never need one. */
  private RedisClient client;
  private boolean closed;

  DedicatedConnections(ValkeyEndpoint endpoint, RedisCodec<String, V> codec,
      ClientResources resources, Duration commandTimeout) {
    this.endpoint = endpoint;
    this.codec = codec;
    this.resources = resources;
    this.commandTimeout = commandTimeout;
  }

  /** Connects to the node at {@code host:port}; the caller closes the connection. */
  synchronized CompletableFuture<StatefulRedisConnection<String, V>> connect(String host, int port) {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("the connection is closed"));
    }
    if (client == null) {
      client = RedisClient.create(resources);
      ClientOptions.Builder options = ClientOptions.builder();
      ValkeyConnection.common(options, endpoint, commandTimeout);
      client.setOptions(options.autoReconnect(false).build());
    }
    // The first seed's settings: TLS, peer verification and credentials are the same on every node.
    RedisURI uri = RedisURI.builder(endpoint.nodes().get(0)).withHost(host).withPort(port).build();
    return client.connectAsync(codec, uri).toCompletableFuture();
  }

  /** Connects to the standalone server, or to the first seed of a cluster. */
  CompletableFuture<StatefulRedisConnection<String, V>> connectToServer() {
    RedisURI server = endpoint.nodes().get(0);
    return connect(server.getHost(), server.getPort());
  }

  /** Closes every connection opened here. Idempotent. */
  synchronized void close() {
    closed = true;
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Closes as {@link #close()} does, without waiting. */
  synchronized void closeAsync() {
    closed = true;
    if (client != null) {
      client.shutdownAsync();
    }
  }
}
