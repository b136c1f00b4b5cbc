package io.warmgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.contract.valkey.ValueKeys;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.testing.KwokClusterExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What every gate scenario starts from: the example namespace applied, the stack installed, deals
 * seeded, and a Valkey connection of the test's own to check L2 independently of the operator.
 */
final class GateScenario implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

  /** The {@code @Order} that registers a scenario after its cluster and stack (default order). */
  static final int LAST = Integer.MAX_VALUE;

  /** The share the release Event gives, such as {@code released after 38 s: coverage 82.0% (…}. */
  private static final Pattern EVENT_COVERAGE = Pattern.compile("coverage ([0-9]+(?:\\.[0-9]+)?)%");

  private final KwokClusterExtension cluster;
  private final Stack stack;
  private final int deals;
  private AbstractRedisClient client;
  private StatefulConnection<String, String> connection;
  private RedisClusterCommands<String, String> valkey;

  private GateScenario(KwokClusterExtension cluster, Stack stack, int deals) {
    this.cluster = cluster;
    this.stack = stack;
    this.deals = deals;
  }

  /**
   * The scenario of a test class, as an extension registered after {@code cluster} and
   * {@code stack}: it is prepared once both have started (before the class's tests) and closed
   * before they stop. Register it last, with {@code @Order(GateScenario.LAST)}.
   */
  static GateScenario of(KwokClusterExtension cluster, Stack stack, int deals) {
    return new GateScenario(cluster, stack, deals);
  }

  /** A scenario prepared at once, for a test that holds it in a try-with-resources block. */
  static GateScenario prepare(KwokClusterExtension cluster, Stack stack, int deals) throws Exception {
    GateScenario scenario = new GateScenario(cluster, stack, deals);
    scenario.open();
    return scenario;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    open();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  private void open() throws Exception {
    cluster.client().load(Files.newInputStream(Repo.dir().resolve("examples/local/namespace.yaml")))
        .serverSideApply();
    stack.install(cluster);
    DealSeeder.seed(stack.databaseClient(), deals);
    if (stack.valkeyCluster()) {
      RedisClusterClient clusterClient = RedisClusterClient.create(
          stack.valkeyAddresses().stream().map(a -> RedisURI.create("redis://" + a)).toList());
      StatefulRedisClusterConnection<String, String> c = clusterClient.connect();
      client = clusterClient;
      connection = c;
      valkey = c.sync();
    } else {
      RedisClient single = RedisClient.create(stack.valkeyUri());
      StatefulRedisConnection<String, String> c = single.connect();
      client = single;
      connection = c;
      valkey = c.sync();
    }
  }

  /** The test's own commands to L2; on a cluster, each key's command goes to its primary. */
  RedisClusterCommands<String, String> valkey() {
    return valkey;
  }

  /** Applies a deal-service Rollout and its policy and waits until its 4 pods serve. */
  DealRollout deploy(String name, Map<String, Object> warmup, Path workdir) {
    return deploy(name, warmup, Map.of(), workdir);
  }

  /** As {@link #deploy(String, Map, Path)}, with other entries of the policy's {@code spec}. */
  DealRollout deploy(String name, Map<String, Object> warmup, Map<String, Object> spec,
      Path workdir) {
    DealRollout app = new DealRollout(cluster.client(), cluster.namespace(), name, stack, warmup,
        spec, workdir, 4);
    awaitServing(app);
    return app;
  }

  /**
   * Zipf traffic ({@code perSecond} lookups/s over the seeded deals) until the cache's hot set
   * tracks at least {@code hotSet} ids; the caller closes the returned traffic.
   */
  Traffic warmUpHotSet(DealApp app, int hotSet, int perSecond) {
    Traffic traffic = new Traffic(app::ports, deals, 1.1, perSecond, 42);
    try {
      await(app.name + " hot set of " + hotSet).atMost(Duration.ofMinutes(3))
          .until(() -> valkey().zcard(new ControlKeys(app.cacheName).hot()) >= hotSet);
    } catch (RuntimeException e) {
      try {
        traffic.close();
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      throw e;
    }
    return traffic;
  }

  /**
   * The origin reads and the distinct keys written that the agents of {@code schemaHash} have
   * recorded, {@code {originLoads, PFCOUNT}}, once two readings a flush interval apart agree. An
   * agent adds its counts every 5 s, and counts a read when it starts but its key when the write
   * lands, so a single reading during traffic can catch reads whose keys come in the next flush.
   */
  long[] settledKeySpaceCounts(String cache, String schemaHash) {
    List<long[]> readings = new ArrayList<>();
    ControlKeys keys = new ControlKeys(cache);
    try {
      return await(cache + " key space counts settled").atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(6)).until(() -> {
            String loads = valkey().hget(keys.stats(schemaHash), "originLoads");
            long[] now = {loads == null ? 0 : Long.parseLong(loads),
                valkey().pfcount(keys.keysWritten(schemaHash))};
            long[] before = readings.isEmpty() ? null : readings.get(readings.size() - 1);
            readings.add(now);
            return before != null && Arrays.equals(before, now) ? now : null;
          }, Objects::nonNull);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(cache + ": the origin reads and keys written of " + schemaHash
          + " still changed after 90 s without traffic, readings 6 s apart {reads, keys}: "
          + readings.stream().map(Arrays::toString).toList(), e);
    }
  }

  /** The ids the warm job of {@code schemaHash} snapshotted, empty when none was opened. */
  List<String> warmJobIds(String cache, String schemaHash) {
    return valkey().lrange(new ControlKeys(cache).warmIds(schemaHash), 0, -1);
  }

  /** The fields of the warm job of {@code schemaHash}, empty when there is none. */
  Map<String, String> warmJob(String cache, String schemaHash) {
    return valkey().hgetall(new ControlKeys(cache).warmJob(schemaHash));
  }

  /** Share of {@code ids} present in {@code schemaHash}'s key space, in percent (0 for none). */
  double coverage(List<String> ids, String cache, String schemaHash) {
    if (ids.isEmpty()) {
      return 0;
    }
    ValueKeys keys = new ValueKeys(cache, schemaHash);
    long present = ids.stream().filter(id -> valkey().exists(keys.value(id)) == 1).count();
    return 100.0 * present / ids.size();
  }

  /**
   * Share of the ids the warm job of {@code schemaHash} snapshotted that are present in its key
   * space, in percent, measured here independently of the operator.
   */
  double jobCoverage(String cache, String schemaHash) {
    List<String> ids = warmJobIds(cache, schemaHash);
    assertThat(ids).as("the ids of the warm job of %s", schemaHash).isNotEmpty();
    return coverage(ids, cache, schemaHash);
  }

  /**
   * Deletes every value of {@code schemaHash}'s key space (not the cache's control keys, whose
   * names carry a hash tag): what the passing of {@code l2Ttl} does to values nobody reloads.
   *
   * @return how many keys were deleted
   */
  long expireKeySpace(String cache, String schemaHash) {
    ScanArgs match =
        ScanArgs.Builder.matches(new ValueKeys(cache, schemaHash).prefix() + "*").limit(500);
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = valkey().scan(cursor, match);
      if (!page.getKeys().isEmpty()) {
        deleted += valkey().del(page.getKeys().toArray(String[]::new));
      }
      cursor = page;
    } while (!cursor.isFinished());
    return deleted;
  }

  /** Waits until {@code app} has rolled out with 4 pods that each answer on their own port. */
  static void awaitServing(DealApp app) {
    awaitServing(app, 4);
  }

  /** Waits until {@code app} has rolled out with {@code pods} pods that each answer on their own port. */
  static void awaitServing(DealApp app, int pods) {
    await(app.name + " rolled out with " + pods + " serving pods").atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> app.healthyAndDone() && app.runningPods() == pods
            && app.ports().stream().allMatch(p -> Http.ok("http://127.0.0.1:" + p + "/healthz")));
  }

  /**
   * Waits for the pause to be released; on time-out, says what the gate and Valkey showed. Fails
   * at once if the API server refused the operator a request meanwhile. Measures nothing: preload
   * goes on after the release, so whether it came once warm is what the operator recorded at that
   * moment ({@link #assertReleasedWarm}).
   */
  void awaitRelease(DealRollout app, String canaryHash) {
    try {
      await("pause released").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(100))
          .until(() -> {
            stack.assertNothingRefused();
            return !app.paused();
          });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the canary of " + app.name + " was never released; gate " + app.gate()
          + "; coverage of the warm job's ids measured here "
          + coverage(warmJobIds(app.cacheName, canaryHash), app.cacheName, canaryHash)
          + "%; warm job " + warmJob(app.cacheName, canaryHash)
          + "; canary stats "
          + valkey().hgetall(new ControlKeys(app.cacheName).stats(canaryHash)), e);
    }
  }

  /**
   * Asserts that the gate released the canary of pod hash {@code podHash} (schema hash
   * {@code canaryHash}) as warm, from what the operator recorded at the release: the coverage in
   * {@code status.gate.releasedCoverage} and in its one release Event (on the Rollout and on the
   * policy, recorded at or after {@code since}) agree and reach {@code minCoverage}, and
   * {@code Warmed} names the canary. That recorded value is then checked against L2: the
   * coverage measured here over the warm job's ids, right after the release, is at least as high
   * (values are only added meanwhile), so the operator did not count ids L2 lacked. Call it right
   * after {@link #awaitRelease}.
   */
  void assertReleasedWarm(DealRollout app, String podHash, String canaryHash, int minCoverage,
      Instant since) {
    double measured = jobCoverage(app.cacheName, canaryHash);
    // The Rollout is patched first, the policy's status and the Events right after.
    await("release recorded").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(app.gate()).as("status.gate").containsEntry("phase", "Promoted")
          .containsEntry("canaryPodHash", podHash).containsKey("releasedCoverage");
      assertThat(app.condition("Warmed")).as("Warmed").containsEntry("status", "True")
          .containsEntry("reason", "CoverageReached");
      assertThat(app.rolloutEvents("CoverageReached", since)).as("release Event on the Rollout")
          .isNotEmpty();
      assertThat(app.policyEvents("CoverageReached", since)).as("release Event on the policy")
          .isNotEmpty();
    });
    Map<String, Object> gate = app.gate();
    double recorded = ((Number) gate.get("releasedCoverage")).doubleValue();
    assertThat(recorded).as("status.gate.releasedCoverage: the coverage the operator released at")
        .isGreaterThanOrEqualTo(minCoverage);
    assertThat((String) app.condition("Warmed").get("message"))
        .startsWith("canary " + podHash + ": released after");
    for (List<Event> released : List.of(app.rolloutEvents("CoverageReached", since),
        app.policyEvents("CoverageReached", since))) {
      assertThat(released).as("one release Event for this canary").hasSize(1);
      String message = released.get(0).getMessage();
      Matcher coverage = EVENT_COVERAGE.matcher(message);
      assertThat(coverage.find()).as("coverage in the release Event: %s", message).isTrue();
      assertThat(Double.parseDouble(coverage.group(1))).as("coverage in the release Event: %s", message)
          .isGreaterThanOrEqualTo(minCoverage)
          // One decimal place in the Event; status.gate holds the percentage as computed.
          .isCloseTo(recorded, within(0.05 + 1e-9));
    }
    assertThat(measured).as("coverage of the warm job's ids in L2 right after the release, "
        + "measured here, vs the %.1f%% the operator recorded", recorded)
        .isGreaterThanOrEqualTo(recorded - 1e-9);
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
    if (client != null) {
      client.shutdown();
      client = null;
    }
  }
}
