package io.warmgate.agent;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The L2 of an IT that runs in both {@link L2Mode}s: one redis-server, or a Redis cluster of three
 * primaries and three replicas, each shared by the test JVM (started on first use, killed at exit),
 * running and empty before each test, with raw connections for the test to look at what the agent
 * wrote.
 *
 * <pre>{@code
 * @ParameterizedClass
 * @EnumSource(L2Mode.class)
 * class SomeIT {
 *   @RegisterExtension final L2Extension valkey;
 *
 *   SomeIT(L2Mode mode) {
 *     valkey = new L2Extension(mode);
 *   }
 * }
 * }</pre>
 * On a cluster, {@link #strings()} and {@link #bytes()} are Lettuce cluster commands: key commands
 * go to the key's primary, {@code KEYS}, {@code DBSIZE} and {@code FLUSHALL} to every primary;
 * {@link #commandCalls()} adds up the primaries' {@code INFO commandstats}.
 */
public final class L2Extension implements BeforeEachCallback, AfterEachCallback {

  private static RedisServer standalone;
  private static RedisCluster cluster;
  /**
   * Shared by every test's raw connections (Lettuce's threads are daemons); they reconnect within
   * half a second of L2 coming back.
   */
  private static final ClientResources RESOURCES = DefaultClientResources.builder()
      .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2,
          TimeUnit.MILLISECONDS))
      .build();

  private final L2Mode mode;
  private ValkeyConnection<String> strings;
  private ValkeyConnection<byte[]> bytes;
  private final List<RedisClient> nodeClients = new ArrayList<>();
  private final List<StatefulRedisConnection<String, String>> nodes = new ArrayList<>();
  /** The port of each of {@link #nodes}. */
  private final List<Integer> nodePorts = new ArrayList<>();

  public L2Extension(L2Mode mode) {
    this.mode = mode;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    ensureRunning();
    flushAll();
    openConnections();
    resetStats();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeConnections();
  }

  private static synchronized void ensureRunning(L2Mode mode) {
    if (mode == L2Mode.STANDALONE) {
      if (standalone == null) {
        standalone = RedisServer.create();
      }
      if (!standalone.isRunning()) {
        standalone.start();
      }
    } else {
      cluster = RedisCluster.shared();
    }
  }

  private void ensureRunning() {
    ensureRunning(mode);
  }

  public L2Mode mode() {
    return mode;
  }

  /** The cluster, in {@link L2Mode#CLUSTER}: for tests that look at its nodes. */
  public RedisCluster cluster() {
    if (mode != L2Mode.CLUSTER) {
      throw new IllegalStateException("no cluster in " + mode + " mode");
    }
    return cluster;
  }

  /** Where the agent under test finds this L2. */
  public ValkeyEndpoint endpoint() {
    return mode == L2Mode.STANDALONE ? ValkeyEndpoint.standalone(standalone.uri())
        : ValkeyEndpoint.cluster(cluster.uris().toArray(String[]::new));
  }

  /** Points {@code builder} at this L2. */
  public <V> WarmGate<V> configure(WarmGate<V> builder) {
    return builder.valkey(endpoint());
  }

  /**
   * The {@code WARMGATE_VALKEY_*} variables of this L2: the server's address, or three of the
   * cluster's six nodes as seeds (the agent finds the others).
   */
  public Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    if (mode == L2Mode.STANDALONE) {
      env.put(WarmGateConfig.VALKEY_ADDRESSES, standalone.host() + ":" + standalone.port());
    } else {
      env.put(WarmGateConfig.VALKEY_MODE, "cluster");
      env.put(WarmGateConfig.VALKEY_ADDRESSES, String.join(",", cluster.addresses().subList(0, 3)));
    }
    return env;
  }

  /** A string connection for the test, as the fleet services open theirs. */
  public ValkeyConnection<String> connection() {
    return strings;
  }

  public RedisClusterCommands<String, String> strings() {
    return strings.sync();
  }

  public RedisClusterCommands<String, byte[]> bytes() {
    return bytes.sync();
  }

  /** The envelope under {@code key}, or null. */
  public Envelope envelope(String key, String schemaHash) {
    byte[] value = bytes().get(key);
    return value == null ? null : Envelope.decode(value, schemaHash);
  }

  /**
   * How many {@code MGET} commands one {@code MGET} of {@code keys} becomes: one on a standalone
   * server, one per distinct hash slot on a cluster (Lettuce splits it).
   */
  public long mgetsFor(List<String> keys) {
    return mode == L2Mode.STANDALONE ? 1
        : keys.stream().mapToInt(SlotHash::getSlot).distinct().count();
  }

  /** Deletes every key. */
  public void flushAll() {
    if (mode == L2Mode.STANDALONE) {
      standalone.flushAll();
    } else {
      cluster.flushAll();
    }
  }

  /** Calls per command since the last {@link #resetStats()}, over every primary. */
  public Map<String, Long> commandCalls() {
    Map<String, Long> calls = new HashMap<>();
    for (StatefulRedisConnection<String, String> node : nodes) {
      for (String line : node.sync().info("commandstats").split("\r?\n")) {
        if (line.startsWith("cmdstat_")) {
          String name = line.substring("cmdstat_".length(), line.indexOf(':'));
          String rest = line.substring(line.indexOf("calls=") + 6);
          calls.merge(name, Long.parseLong(rest.substring(0, rest.indexOf(','))), Long::sum);
        }
      }
    }
    return calls;
  }

  /**
   * {@code CLIENT KILL TYPE normal} on every primary: every client connection but the one sending
   * it breaks, as in a network blip; clients that reconnect by themselves do.
   */
  public void killClients() {
    for (StatefulRedisConnection<String, String> node : nodes) {
      node.sync().clientKill(KillArgs.Builder.typeNormal());
    }
  }

  /**
   * {@code CLIENT PAUSE <ms> WRITE} on the primary that serves {@code key}: for {@code pause} it
   * holds back every client's write commands, and whatever that client sent after them, while
   * reads go on, as a primary slowed by a fork or a full disk would.
   */
  public void pauseWritesOf(String key, Duration pause) {
    pause(key, pause, "WRITE");
  }

  /**
   * {@code CLIENT PAUSE <ms> ALL} on the primary that serves {@code key}: for {@code pause} it
   * answers no client's command, reads included, as a primary stalled by a long command would.
   */
  public void pauseAllOf(String key, Duration pause) {
    pause(key, pause, "ALL");
  }

  private void pause(String key, Duration pause, String which) {
    StatefulRedisConnection<String, String> node =
        mode == L2Mode.STANDALONE ? nodes.get(0) : primaryOf(SlotHash.getSlot(key));
    node.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
        new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(pause.toMillis()).add(which));
  }

  /** The connection to the primary that serves {@code slot}, by {@code CLUSTER SLOTS}. */
  private StatefulRedisConnection<String, String> primaryOf(int slot) {
    for (Object range : nodes.get(0).sync().clusterSlots()) {
      List<?> r = (List<?>) range;
      if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
        int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
        int i = nodePorts.indexOf(port);
        if (i < 0) {
          throw new IllegalStateException("slot " + slot + " is served by port " + port
              + ", not one of the primaries this test connected to: " + nodePorts);
        }
        return nodes.get(i);
      }
    }
    throw new IllegalStateException("no primary serves slot " + slot);
  }

  /** {@code CONFIG RESETSTAT} on every primary. */
  public void resetStats() {
    for (StatefulRedisConnection<String, String> node : nodes) {
      node.sync().configResetstat();
    }
  }

  /**
   * Kills the server, or every node of the cluster: L2 is down. Connections stay open and fail
   * their commands until {@link #start()}.
   */
  public void stop() {
    if (mode == L2Mode.STANDALONE) {
      standalone.stop();
    } else {
      cluster.stop();
    }
  }

  /**
   * Brings L2 back (empty) after {@link #stop()} and returns once the test's connections (also
   * {@link #connection()}) have reconnected to every primary.
   */
  public void start() {
    ensureRunning();
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
      strings().dbsize(); // on a cluster: every primary
      bytes().dbsize();
      nodes.forEach(n -> n.sync().ping());
      return true;
    });
  }

  public boolean isRunning() {
    return mode == L2Mode.STANDALONE ? standalone.isRunning() : cluster.isRunning();
  }

  private void openConnections() {
    ValkeyEndpoint endpoint = endpoint();
    try {
      strings = ValkeyConnection.open(endpoint, StringCodec.UTF8, RESOURCES, Duration.ofSeconds(5))
          .get(20, TimeUnit.SECONDS);
      bytes = ValkeyConnection.open(endpoint, RedisCodec.of(StringCodec.UTF8,
          ByteArrayCodec.INSTANCE), RESOURCES, Duration.ofSeconds(5)).get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot connect to " + endpoint + ": " + e, e);
    }
    List<Integer> ports = mode == L2Mode.STANDALONE ? List.of(standalone.port())
        : cluster.primaries().stream().map(RedisCluster.Node::port).toList();
    for (int port : ports) {
      RedisURI uri = RedisURI.create("redis://127.0.0.1:" + port);
      uri.setTimeout(Duration.ofSeconds(5));
      RedisClient client = RedisClient.create(RESOURCES, uri);
      nodeClients.add(client);
      nodes.add(client.connect());
      nodePorts.add(port);
    }
  }

  private void closeConnections() {
    if (strings != null) {
      strings.close();
      strings = null;
    }
    if (bytes != null) {
      bytes.close();
      bytes = null;
    }
    nodes.forEach(StatefulRedisConnection::close);
    nodes.clear();
    nodePorts.clear();
    nodeClients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    nodeClients.clear();
  }
}
