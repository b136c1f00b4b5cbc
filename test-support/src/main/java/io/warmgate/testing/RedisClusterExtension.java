package io.warmgate.testing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs a {@link RedisCluster} (three primaries, three replicas) for a test class:
 * {@code @RegisterExtension static final RedisClusterExtension cluster = new RedisClusterExtension();}.
 *
 * <p>A {@code static} field gives one cluster per class, an instance field one per test. A test
 * that kills nodes or the whole cluster finds every node running again in the next test (killed
 * nodes restarted with their identity; after a full stop, empty).
 */
public final class RedisClusterExtension extends ServiceExtension {

  private final RedisCluster cluster;

  /** Creates an extension whose cluster accepts plain connections. */
  public RedisClusterExtension() {
    this(RedisCluster.create());
  }

  private RedisClusterExtension(RedisCluster cluster) {
    super(cluster);
    this.cluster = cluster;
  }

  /** Creates an extension whose cluster speaks only TLS: see {@link RedisCluster#withTls()}. */
  public static RedisClusterExtension withTls() {
    return new RedisClusterExtension(RedisCluster.withTls());
  }

  /** Returns the cluster this extension runs. */
  public RedisCluster cluster() {
    return cluster;
  }

  /** See {@link RedisCluster#addresses()}. */
  public List<String> addresses() {
    return cluster.addresses();
  }

  /** See {@link RedisCluster#uris()}. */
  public List<String> uris() {
    return cluster.uris();
  }

  /** See {@link RedisCluster#nodes()}. */
  public List<RedisCluster.Node> nodes() {
    return cluster.nodes();
  }

  /** See {@link RedisCluster#primaries()}. */
  public List<RedisCluster.Node> primaries() {
    return cluster.primaries();
  }

  /** See {@link RedisCluster#kill(RedisCluster.Node)}. */
  public void kill(RedisCluster.Node node) {
    cluster.kill(node);
  }

  /** See {@link RedisCluster#restart(RedisCluster.Node)}. */
  public void restart(RedisCluster.Node node) {
    cluster.restart(node);
  }

  /** See {@link RedisCluster#awaitHealthy(Duration)}. */
  public Duration awaitHealthy(Duration timeout) {
    return cluster.awaitHealthy(timeout);
  }

  /** See {@link RedisCluster#moveSlots(int, RedisCluster.Node)}. */
  public Duration moveSlots(int count, RedisCluster.Node to) {
    return cluster.moveSlots(count, to);
  }

  /** See {@link RedisCluster#keysPerPrimary()}. */
  public Map<RedisCluster.Node, Long> keysPerPrimary() {
    return cluster.keysPerPrimary();
  }

  /** See {@link RedisCluster#flushAll()}. */
  public void flushAll() {
    cluster.flushAll();
  }

  /** See {@link RedisCluster#stop()}. */
  public void stop() {
    cluster.stop();
  }

  /** See {@link RedisCluster#start()}. */
  public void start() {
    cluster.start();
  }

  /** See {@link RedisCluster#isRunning()}. */
  public boolean isRunning() {
    return cluster.isRunning();
  }

  /** See {@link RedisCluster#tlsCertificates()}. */
  public Optional<TestCertificates> tlsCertificates() {
    return cluster.tlsCertificates();
  }
}
