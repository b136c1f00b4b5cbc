package io.warmgate.gateway.it;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The Valkey of a gateway IT that runs in both {@link ValkeyMode}s: one redis-server, or a Redis
 * cluster of three primaries and three replicas, each shared by the test JVM (started on first
 * use), running and empty before each test, with a connection for the test to look at what the
 * gateways wrote (on a cluster, each key command goes to the key's primary).
 *
 * <pre>{@code
 * @ParameterizedClass
 * @EnumSource(ValkeyMode.class)
 * class SomeIT {
 *   @RegisterExtension final ValkeyExtension valkey;
 *
 *   SomeIT(ValkeyMode mode) {
 *     valkey = new ValkeyExtension(mode);
 *   }
 * }
 * }</pre>
 */
public final class ValkeyExtension implements BeforeEachCallback, AfterEachCallback {

  private static RedisServer standalone;
  /** Shared by every test's connection (Lettuce's threads are daemons). */
  private static final ClientResources RESOURCES = DefaultClientResources.builder()
      .ioThreadPoolSize(2).computationThreadPoolSize(2).build();

  private final ValkeyMode mode;
  private ValkeyConnection<String> connection;

  public ValkeyExtension(ValkeyMode mode) {
    this.mode = mode;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    ensureRunning(mode);
    flushAll();
    connection = open(endpoint());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  private static synchronized void ensureRunning(ValkeyMode mode) {
    if (mode == ValkeyMode.CLUSTER) {
      RedisCluster.shared();
      return;
    }
    if (standalone == null) {
      standalone = RedisServer.create();
    }
    if (!standalone.isRunning()) {
      standalone.start();
    }
  }

  public ValkeyMode mode() {
    return mode;
  }

  /**
   * The {@code WARMGATE_VALKEY_*} variables of this Valkey: the server's address, or three of the
   * cluster's six nodes as seeds (the gateway finds the others).
   */
  public Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    if (mode == ValkeyMode.STANDALONE) {
      env.put(GatewayConfig.VALKEY_ADDRESSES, standalone.host() + ":" + standalone.port());
    } else {
      env.put(GatewayConfig.VALKEY_MODE, "cluster");
      env.put(GatewayConfig.VALKEY_ADDRESSES,
          String.join(",", RedisCluster.shared().addresses().subList(0, 3)));
    }
    return env;
  }

  /** The test's connection, opened as the gateway opens its own. */
  public ValkeyConnection<String> connection() {
    return connection;
  }

  /** Blocking commands on {@link #connection()}. */
  public RedisClusterCommands<String, String> commands() {
    return connection.sync();
  }

  /** Deletes every key. */
  public void flushAll() {
    if (mode == ValkeyMode.STANDALONE) {
      standalone.flushAll();
    } else {
      RedisCluster.shared().flushAll();
    }
  }

  /** Kills the server, or every node of the cluster: Valkey is down. */
  public void stop() {
    if (mode == ValkeyMode.STANDALONE) {
      standalone.stop();
    } else {
      RedisCluster.shared().stop();
    }
  }

  /** Brings Valkey back, empty, at the same addresses. */
  public void start() {
    ensureRunning(mode);
  }

  /** Connects to {@code endpoint} as the gateway does, with this extension's Lettuce resources. */
  static ValkeyConnection<String> open(ValkeyEndpoint endpoint) {
    try {
      return ValkeyConnection.open(endpoint, StringCodec.UTF8, RESOURCES, Duration.ofSeconds(10))
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot connect to " + endpoint + ": " + e, e);
    }
  }

  private ValkeyEndpoint endpoint() {
    return mode == ValkeyMode.STANDALONE ? ValkeyEndpoint.standalone(standalone.uri())
        : ValkeyEndpoint.cluster(RedisCluster.shared().uris().toArray(String[]::new));
  }
}
