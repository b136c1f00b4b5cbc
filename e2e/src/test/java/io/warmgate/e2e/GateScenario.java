package io.warmgate.e2e;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.testing.DealSeeder;
import io.warmgate.testing.KwokClusterExtension;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/**
 * What every gate scenario starts from: the example namespace applied, the stack installed, deals
 * seeded, and a Valkey connection of the test's own to check L2 independently of the operator.
 */
final class GateScenario implements AutoCloseable {

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  private GateScenario(String valkeyUri) {
    client = RedisClient.create(valkeyUri);
    connection = client.connect();
  }

  static GateScenario prepare(KwokClusterExtension cluster, Stack stack, int deals) throws Exception {
    cluster.client().load(Files.newInputStream(Repo.dir().resolve("examples/local/namespace.yaml")))
        .serverSideApply();
    stack.install(cluster);
    DealSeeder.seed(stack.databaseClient(), deals);
    return new GateScenario(stack.valkeyUri());
  }

  RedisCommands<String, String> valkey() {
    return connection.sync();
  }

  /** The ids the warm job of {@code schemaHash} snapshotted, empty when none was opened. */
  List<String> warmJobIds(String cache, String schemaHash) {
    return valkey().lrange("{wg:" + cache + "}:warm:" + schemaHash + ":ids", 0, -1);
  }

  /** Share of {@code ids} present in {@code schemaHash}'s key space, in percent (0 for none). */
  double coverage(List<String> ids, String cache, String schemaHash) {
    if (ids.isEmpty()) {
      return 0;
    }
    long present = ids.stream()
        .filter(id -> valkey().exists("wg:" + cache + ":" + schemaHash + ":" + id) == 1).count();
    return 100.0 * present / ids.size();
  }

  /** Waits until {@code app} is Healthy with 4 pods that each answer on their own port. */
  static void awaitServing(DealRollout app) {
    awaitServing(app, 4);
  }

  /** Waits until {@code app} is Healthy with {@code pods} pods that each answer on their own port. */
  static void awaitServing(DealRollout app, int pods) {
    await(app.name + " Healthy with " + pods + " serving pods").atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> app.healthyAndDone() && app.runningPods() == pods
            && app.ports().stream().allMatch(p -> Http.ok("http://127.0.0.1:" + p + "/healthz")));
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }
}
