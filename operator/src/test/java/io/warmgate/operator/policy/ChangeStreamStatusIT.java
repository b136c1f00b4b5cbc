package io.warmgate.operator.policy;

import static io.warmgate.operator.testing.Policies.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.changes.ChangeStreamProgress;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.ChangeStreamStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeyMode;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.operator.testing.RunningOperator;
import io.warmgate.operator.valkey.ProbeResult;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyEndpoint;
import io.warmgate.testing.RedisClusterExtension;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * status.changeStream and ChangesFollowed against a real API server and a real Redis, one server
 * and a cluster, the reader's progress written as ChangeStreamWatcher writes it ({@code HSET} of
 * {@code {wg:<cache>}:changes:<stream>}).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(ChangeStreamStatusIT.Mode.class)
class ChangeStreamStatusIT {

  enum Mode { STANDALONE, CLUSTER }

  static final String STREAM = "DealChanges";

  @RegisterExtension
  @Order(1)
  static final ApiServer api = new ApiServer();

  @RegisterExtension
  @Order(2)
  static final RunningOperator operator = RunningOperator.withoutRollouts(api);

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();
  @RegisterExtension
  static final RedisClusterExtension redisCluster = new RedisClusterExtension();

  static Policies policies;

  final Mode mode;
  String ns;
  String cacheName;
  ValkeyClients writer;
  RedisClusterCommands<String, String> r;

  ChangeStreamStatusIT(Mode mode) {
    this.mode = mode;
  }

  @BeforeAll
  static void clients() {
    policies = operator.policies();
  }

  @BeforeEach
  void namespaceAndValkey(TestInfo test) {
    ns = api.newNamespace("changes");
    cacheName = "c-" + ns;
    policies.deployment(ns, "app");
    writer = new ValkeyClients(Duration.ofSeconds(5));
    ProbeResult probe = writer.probe("it", endpoint());
    assertThat(probe.reachable()).as(probe.message()).isTrue();
    r = writer.commands("it").sync();
  }

  @AfterEach
  void close() {
    writer.close();
  }

  List<String> addresses() {
    return mode == Mode.CLUSTER ? redisCluster.addresses()
        : List.of(redis.host() + ":" + redis.port());
  }

  ValkeyEndpoint endpoint() {
    return new ValkeyEndpoint(addresses(), mode == Mode.CLUSTER, false, true, null, null, null);
  }

  CachePolicy policy(ChangeStreamSpec changes) {
    CachePolicy policy = new CachePolicy();
    policy.getMetadata().setName("deals");
    policy.getMetadata().setNamespace(ns);
    CachePolicySpec spec = new CachePolicySpec();
    spec.setTargetRef(new TargetRef(TargetKind.Deployment, "app"));
    spec.setCacheName(cacheName);
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(addresses());
    valkey.setMode(mode == Mode.CLUSTER ? ValkeyMode.Cluster : ValkeyMode.Standalone);
    spec.setValkey(valkey);
    spec.setChangeStream(changes);
    policy.setSpec(spec);
    return api.client().resource(policy).create();
  }

  String key() {
    return new ControlKeys(cacheName).changes(STREAM);
  }

  /** Saves the reader's progress as ChangeStreamWatcher.saveWatermark does. */
  void save(Instant watermark, Instant updatedAt) {
    r.hset(key(), Map.of(
        "watermark", watermark.toString(),
        "lagMs", Long.toString(Duration.between(watermark, updatedAt).toMillis()),
        "owner", "deals-5c7d9-x2x4q/0f6b2a",
        "updatedAt", Long.toString(updatedAt.toEpochMilli())));
  }

  ChangeStreamStatus changeStream() {
    return policies.get(ns, "deals").getStatus().getChangeStream();
  }

  @Test
  void aReaderSavingItsProgressIsFollowedWithItsLag() {
    policy(new ChangeStreamSpec(STREAM, "1s"));

    Condition none = policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED, "False",
        "NoReader");
    assertThat(none.getMessage()).contains(key()).contains("WARMGATE_CHANGE_STREAM=" + STREAM)
        .contains("ChangeStreamWatcher");
    assertThat(changeStream().getName()).isEqualTo(STREAM);
    assertThat(changeStream().getReader()).isNull();

    Instant watermark = Instant.now().minusSeconds(2);
    save(watermark, Instant.now());

    Condition followed = policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED,
        "True", "Following");
    assertThat(followed.getMessage()).contains("deals-5c7d9-x2x4q/0f6b2a");
    ChangeStreamStatus status = changeStream();
    assertThat(status.getReader()).isEqualTo("deals-5c7d9-x2x4q/0f6b2a");
    assertThat(status.getWatermark()).isEqualTo(watermark.toString());
    assertThat(status.getLagSeconds()).isBetween(1.9,
        (double) ChangeStreamProgress.MIN_LAG_BOUND.toSeconds());
    assertThat(Instant.parse(status.getObservedAt())).isAfter(watermark);
    assertThat(policies.condition(ns, "deals", Conditions.READY)).hasValueSatisfying(
        c -> assertThat(c.getStatus()).isEqualTo("True"));
  }

  @Test
  void aReaderThatStoppedSavingIsNoReader() {
    Instant last = Instant.now().minus(ChangeStreamProgress.FRESH_FOR).minusSeconds(30);
    save(last.minusSeconds(1), last);

    policy(new ChangeStreamSpec(STREAM, "1s"));

    Condition stale = policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED, "False",
        "NoReader");
    assertThat(stale.getMessage()).contains("deals-5c7d9-x2x4q/0f6b2a")
        .contains("no pod reads the stream now");
    assertThat(changeStream().getLagSeconds()).isGreaterThanOrEqualTo(46.0);

    save(Instant.now().minusMillis(500), Instant.now());
    policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED, "True", "Following");
  }

  @Test
  void aReaderFurtherBehindThanTheBoundIsLagging() {
    save(Instant.now().minusSeconds(40), Instant.now());

    policy(new ChangeStreamSpec(STREAM, "2s"));

    Condition lagging = policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED, "False",
        "Lagging");
    assertThat(lagging.getMessage()).contains("more than 10.0 s");
    assertThat(changeStream().getLagSeconds()).isGreaterThanOrEqualTo(40.0);
  }

  @Test
  void withoutTheSectionThereIsNeitherConditionNorStatusAndRemovingItRemovesThem() {
    policy(new ChangeStreamSpec(STREAM, "1s"));
    policies.awaitCondition(ns, "deals", Conditions.CHANGES_FOLLOWED, "False", "NoReader");

    api.client().resources(CachePolicy.class).inNamespace(ns).withName("deals").edit(p -> {
      p.getSpec().setChangeStream(null);
      return p;
    });

    await().atMost(WITHIN).untilAsserted(() -> {
      CachePolicy policy = policies.get(ns, "deals");
      assertThat(policy.getStatus().getObservedGeneration()).isEqualTo(2L);
      assertThat(Conditions.find(policy.getStatus(), Conditions.CHANGES_FOLLOWED)).isEmpty();
      assertThat(policy.getStatus().getChangeStream()).isNull();
    });
    assertThat(policies.condition(ns, "deals", Conditions.READY)).hasValueSatisfying(
        c -> assertThat(c.getStatus()).isEqualTo("True"));
  }
}
