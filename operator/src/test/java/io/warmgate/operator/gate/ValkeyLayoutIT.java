package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.valkey.ProbeResult;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyCommands;
import io.warmgate.operator.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisCluster;
import io.warmgate.testing.RedisClusterExtension;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator's readers and writer of docs/valkey-layout.md against a real Redis: one server, and
 * a cluster of three primaries with a replica each, through the operator's own {@link ValkeyClients}.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(ValkeyLayoutIT.Mode.class)
class ValkeyLayoutIT {

  enum Mode { STANDALONE, CLUSTER }

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();
  @RegisterExtension
  static final RedisClusterExtension redisCluster = new RedisClusterExtension();

  /** The forecast window, l2Ttl. */
  static final Duration W = Duration.ofMinutes(4);

  final Mode mode;
  final ControlKeys keys = new ControlKeys("deals");
  ValkeyClients clients;
  ValkeyCommands connection;
  RedisClusterCommands<String, String> r;

  ValkeyLayoutIT(Mode mode) {
    this.mode = mode;
  }

  @BeforeEach
  void connect() {
    boolean cluster = mode == Mode.CLUSTER;
    if (cluster) {
      redisCluster.flushAll();
    } else {
      redis.flushAll();
    }
    clients = new ValkeyClients(Duration.ofSeconds(5));
    ProbeResult probe = clients.probe("it", new ValkeyEndpoint(cluster ? redisCluster.addresses()
        : List.of(redis.host() + ":" + redis.port()), cluster, false, true, null, null, null));
    assertThat(probe.reachable()).as(probe.message()).isTrue();
    connection = clients.commands("it");
    r = connection.sync();
  }

  @AfterEach
  void close() {
    clients.close();
  }

  /**
   * Two namespaces sharing one Valkey and one cache name, with pods of the same name: agents key
   * their entries {@code <namespace>/<pod>}; older agents, without a namespace, by pod name.
   */
  @Test
  void registryKeepsEntriesOfThePolicysNamespaceAndThoseWithoutOne() {
    Instant now = Instant.now();
    long later = now.plusSeconds(15).toEpochMilli();
    r.hset(keys.agents(), Map.of(
        "staging/deals-1", "{\"pod\":\"deals-1\",\"namespace\":\"staging\",\"podTemplateHash\":"
            + "\"c1\",\"schemaHash\":\"bbb\",\"expiresAt\":" + later + "}",
        "prod/deals-1", "{\"pod\":\"deals-1\",\"namespace\":\"prod\",\"podTemplateHash\":\"c1\","
            + "\"schemaHash\":\"ccc\",\"expiresAt\":" + later + "}",
        "old-agent", "{\"pod\":\"old-agent\",\"podTemplateHash\":\"c1\",\"schemaHash\":"
            + "\"bbb\",\"expiresAt\":" + later + "}"));

    assertThat(AgentRegistry.live(r, keys, "staging", now)).containsExactlyInAnyOrder(
        new Agent("deals-1", "staging", "c1", "bbb", later),
        new Agent("old-agent", null, "c1", "bbb", later));
    assertThat(AgentRegistry.live(r, keys, "prod", now)).containsExactlyInAnyOrder(
        new Agent("deals-1", "prod", "c1", "ccc", later),
        new Agent("old-agent", null, "c1", "bbb", later));
  }

  @Test
  void registryKeepsLiveWellFormedEntriesOnly() {
    Instant now = Instant.now();
    long later = now.plusSeconds(15).toEpochMilli();
    r.hset(keys.agents(), Map.of(
        "live", "{\"pod\":\"live\",\"podTemplateHash\":\"c1\",\"schemaHash\":\"bbb\","
            + "\"expiresAt\":" + later + "}",
        "dead", "{\"pod\":\"dead\",\"podTemplateHash\":\"c1\",\"schemaHash\":\"ccc\","
            + "\"expiresAt\":" + now.minusSeconds(1).toEpochMilli() + "}",
        "no-hash", "{\"pod\":\"no-hash\",\"schemaHash\":\"ddd\",\"expiresAt\":" + later + "}",
        "garbage", "not json"));

    assertThat(AgentRegistry.live(r, keys, "ns", now))
        .containsExactly(new Agent("live", null, "c1", "bbb", later));
  }

  /**
   * Issue 13 item 12: a large target costs at most COVERAGE_SAMPLE EXISTS per measurement, on
   * the same sample every time, and estimates the share present within its stated bound.
   */
  @Test
  void coverageOfALargeTargetChecksAFixedSampleOnly() {
    List<String> ids = java.util.stream.IntStream.range(0, 50_000).mapToObj(i -> "id-" + i)
        .toList();
    Map<String, String> values = new java.util.HashMap<>();
    for (int i = 0; i < 40_000; i++) {
      values.put("wg:deals:bbb:id-" + i, "v");
    }
    r.mset(values);
    NamespaceStats stats = new NamespaceStats(connection, keys, Duration.ofSeconds(5));

    long before = existsCalls();
    Coverage first = stats.coverage("bbb", ids);
    assertThat(existsCalls() - before).isEqualTo(NamespaceStats.COVERAGE_SAMPLE);
    assertThat(first.total()).isEqualTo(50_000);
    assertThat(first.sampled()).isEqualTo(NamespaceStats.COVERAGE_SAMPLE);
    assertThat(first.percent()).isBetween(75.0, 85.0);
    assertThat(first.keys()).contains("/50,000 keys (").contains("of 1,024 sampled ids present");
    assertThat(stats.coverage("bbb", ids)).as("the same sample every time").isEqualTo(first);
    // 80% present: the lower bound keeps a sample near 80% from counting as 80% reached.
    assertThat(first.reaches(70)).isTrue();
    assertThat(first.reaches(90)).isFalse();
    List<String> reversed = new java.util.ArrayList<>(ids);
    java.util.Collections.reverse(reversed);
    assertThat(NamespaceStats.sample("bbb", ids, 1024))
        .isEqualTo(NamespaceStats.sample("bbb", reversed, 1024));
  }

  /** EXISTS calls the server has answered; on a cluster, its primaries together. */
  long existsCalls() {
    if (mode == Mode.STANDALONE) {
      return existsCalls(r.info("commandstats"));
    }
    long calls = 0;
    for (RedisCluster.Node primary : redisCluster.primaries()) {
      RedisClient client = RedisClient.create("redis://" + primary.address());
      try (StatefulRedisConnection<String, String> node = client.connect()) {
        calls += existsCalls(node.sync().info("commandstats"));
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
    return calls;
  }

  private static long existsCalls(String commandStats) {
    return commandStats.lines().filter(l -> l.startsWith("cmdstat_exists:"))
        .map(l -> Long.parseLong(l.replaceAll("^cmdstat_exists:calls=(\\d+),.*$", "$1")))
        .findFirst().orElse(0L);
  }

  @Test
  void coverageCountsEscapedValueKeysOfTheHottestIds() {
    r.zadd(keys.hot(), 3, "a:b c");
    r.zadd(keys.hot(), 2, "plain");
    r.zadd(keys.hot(), 1, "cold");
    r.set("wg:deals:bbb:a%3Ab%20c", "v");
    r.set("wg:deals:aaa:plain", "v");
    r.set("wg:deals:bbb:cold", "v");
    NamespaceStats stats = new NamespaceStats(connection, keys, Duration.ofSeconds(5));
    // No hot-set meta, so no forecast: the hottest hotSetSize ids.
    List<String> top2 = stats.hotSet(2, W, Instant.now()).ids();
    List<String> top10 = stats.hotSet(10, W, Instant.now()).ids();

    assertThat(top2).containsExactly("a:b c", "plain");
    assertThat(stats.coverage("bbb", top2)).isEqualTo(new Coverage(1, 2));
    assertThat(stats.coverage("bbb", top10)).isEqualTo(new Coverage(2, 3));
    assertThat(stats.coverage("eee", top10)).isEqualTo(new Coverage(0, 3));
  }

  @Test
  void hotSetReadsScoresLandmarkAndMetaAndCutsTheIdsNotExpectedWithinTheWindow() {
    Instant now = Instant.ofEpochMilli(1_700_000_000_000L);
    long h = Duration.ofMinutes(10).toMillis();
    // Observed for one half-life with the landmark at its start: E = h / (2 ln 2), and a score
    // s at now means s × 2^-1 decayed lookups, so s / (2 E) = s ln 2 / h lookups per ms.
    r.set(keys.hotLandmark(), Long.toString(now.toEpochMilli() - h));
    r.hset(keys.hotMeta(), Map.of("since", Long.toString(now.toEpochMilli() - h),
        "halfLifeMs", Long.toString(h), "samplePeriod", "1"));
    double perRequestInW = h / Math.log(2) / W.toMillis(); // score of one expected request in W
    r.zadd(keys.hot(), 20 * perRequestInW, "often");   // 36 lookups in E: e^-19.4 missed
    r.zadd(keys.hot(), 10 * perRequestInW, "regular"); // e^-9.4
    r.zadd(keys.hot(), 0.1 * perRequestInW, "rare");   // under one lookup: surely missed
    r.zadd(keys.hot(), 0.05 * perRequestInW, "rarer");
    NamespaceStats stats = new NamespaceStats(connection, keys, Duration.ofSeconds(5));

    HotSetForecast.Cut cut = stats.hotSet(4, W, now);

    assertThat(cut.ids()).containsExactly("often", "regular");
    assertThat(cut.tracked()).isEqualTo(4);
    assertThat(cut.describe())
        .isEqualTo("hot set: 2 of 4 tracked ids expected to be read within l2Ttl 4m");
    assertThat(stats.hotSet(1, W, now).ids()).containsExactly("often");
  }

  @Test
  void jobCoverageMeasuresTheSnapshottedIdsNotTheLiveHotSet() {
    r.rpush(keys.warmIds("bbb"), "a:b c", "plain");
    r.set("wg:deals:bbb:a%3Ab%20c", "v");
    r.set("wg:deals:bbb:plain", "v");
    // Traffic since the snapshot made other ids hotter; the target stays what was snapshotted.
    r.zadd(keys.hot(), 9, "newly-hot");
    r.zadd(keys.hot(), 1, "plain");
    NamespaceStats stats = new NamespaceStats(connection, keys, Duration.ofSeconds(5));

    assertThat(stats.jobCoverage("bbb")).isEqualTo(new Coverage(2, 2));
    assertThat(stats.coverage("bbb", stats.hotSet(2, W, Instant.now()).ids()))
        .isEqualTo(new Coverage(1, 2));
  }

  @Test
  void hitRatioSumsTheBucketsOfTheWindow() {
    Instant now = Instant.ofEpochSecond(1_700_000_055L);
    r.hset(keys.statsBucket("bbb", 1_700_000_050L), Map.of("l1Hits", "6", "l2Hits", "2",
        "misses", "2"));
    r.hset(keys.statsBucket("bbb", 1_700_000_030L), Map.of("misses", "10"));
    r.hset(keys.statsBucket("bbb", 1_700_000_000L), Map.of("l1Hits", "1000"));
    NamespaceStats stats = new NamespaceStats(connection, keys, Duration.ofSeconds(5));

    assertThat(stats.hitRatio("bbb", Duration.ofSeconds(10), now)).isEqualTo(0.8);
    assertThat(stats.hitRatio("bbb", Duration.ofSeconds(30), now)).isEqualTo(0.4);
    assertThat(stats.hitRatio("ccc", Duration.ofSeconds(30), now)).isNull();
  }

  @Test
  void warmJobOpensOnceWithTheHotSnapshotAndIsNeverReset() {
    for (int i = 0; i < 2500; i++) {
      r.zadd(keys.hot(), i, "id-" + i);
    }
    Instant now = Instant.ofEpochMilli(1_700_000_000_000L);

    assertThat(WarmJobs.open(r, keys, "bbb", 2000, 300, "hot set: chosen so", "7d9f8b6c5", now))
        .isTrue();

    assertThat(r.hgetall(keys.warmJob("bbb"))).containsAllEntriesOf(Map.of("target", "2000",
        "rate", "300", "batchSize", "200", "state", "Open", "filled", "0", "errors", "0",
        "cursor", "0", "createdAt", "1700000000000", "updatedAt", "1700000000000"))
        .containsEntry("revision", "7d9f8b6c5")
        .containsEntry("keepWarmUntil", Long.toString(now.plus(WarmJobs.KEEP_WARM).toEpochMilli()));
    List<String> ids = r.lrange(keys.warmIds("bbb"), 0, -1);
    assertThat(ids).hasSize(2000).startsWith("id-2499", "id-2498").endsWith("id-500");
    assertThat(r.pttl(keys.warmJob("bbb"))).isPositive();
    assertThat(r.pttl(keys.warmIds("bbb"))).isPositive();
    assertThat(WarmJobs.read(r, keys, "bbb"))
        .isEqualTo(new WarmJob("Open", 2000, 0, 0, "opened by the warmgate operator",
            "hot set: chosen so", "7d9f8b6c5"));

    r.hset(keys.warmJob("bbb"), Map.of("state", "Done", "filled", "1990", "errors", "10",
        "cursor", "2000"));
    assertThat(WarmJobs.open(r, keys, "bbb", 5000, 10, null, "7d9f8b6c5", now.plusSeconds(60)))
        .isFalse();
    assertThat(r.hgetall(keys.warmJob("bbb"))).containsEntry("state", "Done")
        .containsEntry("filled", "1990").containsEntry("target", "2000");
    assertThat(r.llen(keys.warmIds("bbb"))).isEqualTo(2000);
  }

  @Test
  void keepWarmRenewsOnlyAnExistingJobAndDiscardLeavesTheAgentsLock() {
    Instant now = Instant.ofEpochMilli(1_700_000_000_000L);
    WarmJobs.keepWarm(r, keys, "none", now);
    assertThat(r.exists(keys.warmJob("none"))).as("keep-warm never creates a job").isZero();

    r.zadd(keys.hot(), 1, "a");
    assertThat(WarmJobs.open(r, keys, "bbb", 1, 100, null, "rev-1", now)).isTrue();
    WarmJobs.keepWarm(r, keys, "bbb", now.plusSeconds(30));
    assertThat(r.hget(keys.warmJob("bbb"), "keepWarmUntil"))
        .isEqualTo(Long.toString(now.plusSeconds(30).plus(WarmJobs.KEEP_WARM).toEpochMilli()));

    r.set(keys.warmJob("bbb") + ":lock", "pod-1/token");
    WarmJobs.discard(r, keys, "bbb");
    assertThat(r.exists(keys.warmJob("bbb"), keys.warmIds("bbb"))).isZero();
    assertThat(r.get(keys.warmJob("bbb") + ":lock")).isEqualTo("pod-1/token");
    assertThat(WarmJobs.open(r, keys, "bbb", 1, 100, null, "rev-2", now)).isTrue();
    assertThat(WarmJobs.read(r, keys, "bbb").revision()).isEqualTo("rev-2");
  }

  @Test
  void warmJobForAnEmptyHotSetHasNothingToLoad() {
    assertThat(WarmJobs.open(r, keys, "bbb", 100, 500, null, "rev", Instant.now())).isTrue();
    assertThat(WarmJobs.read(r, keys, "bbb").target()).isZero();
    assertThat(r.exists(keys.warmIds("bbb"))).isZero();
    assertThat(WarmJobs.read(r, keys, "bbb").hotSetText()).isNull();

    // A target of 0 (nothing expected to be read) snapshots nothing, not the whole set.
    r.zadd(keys.hot(), 1, "a");
    assertThat(WarmJobs.open(r, keys, "ccc", 0, 500, null, "rev", Instant.now())).isTrue();
    assertThat(WarmJobs.read(r, keys, "ccc").target()).isZero();
    assertThat(r.exists(keys.warmIds("ccc"))).isZero();
    assertThat(WarmJobs.read(r, keys, "none")).isNull();
  }
}
