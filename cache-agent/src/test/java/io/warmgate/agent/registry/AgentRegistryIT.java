package io.warmgate.agent.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The registry hash on a real redis-server and a Redis cluster, time driven by a manual clock. */
@ParameterizedClass
@EnumSource(L2Mode.class)
class AgentRegistryIT {

  private final ManualClock clock = new ManualClock();
  private final KeySpace stable = new KeySpace("deals", "aaaaaaaaaaaa");
  private final KeySpace canary = new KeySpace("deals", "bbbbbbbbbbbb");
  @RegisterExtension
  final L2Extension valkey;
  private ValkeyConnection<String> connection;
  private RedisClusterCommands<String, String> raw;

  AgentRegistryIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void connect() {
    connection = valkey.connection();
    raw = valkey.strings();
  }

  private AgentRegistry agent(String pod, String templateHash, KeySpace keys) {
    return agent("shop", pod, templateHash, keys);
  }

  private AgentRegistry agent(String namespace, String pod, String templateHash, KeySpace keys) {
    long now = clock.millis();
    return new AgentRegistry(connection, keys,
        new AgentInfo(pod, namespace, templateHash, keys.schemaHash(), "1.2.3", now, now), clock);
  }

  @Test
  void heartbeatWritesTheEntryOfTheLayoutDocument() {
    long started = clock.millis();
    agent("deals-7d9f-abcde", "7d9f", stable).heartbeat();

    String json = raw.hget("{wg:deals}:agents", "shop/deals-7d9f-abcde");
    assertThat(json).isEqualTo("{\"pod\":\"deals-7d9f-abcde\",\"namespace\":\"shop\","
        + "\"podTemplateHash\":\"7d9f\",\"schemaHash\":\"aaaaaaaaaaaa\",\"version\":\"1.2.3\","
        + "\"startedAt\":" + started + ",\"expiresAt\":" + (started + 15_000) + "}");
    assertThat(raw.pttl("{wg:deals}:agents")).isBetween(3_590_000L, 3_600_000L);
    // Its key space, until every value it could write while its entry lives has expired.
    assertThat(raw.zscore("{wg:deals}:spaces", "aaaaaaaaaaaa"))
        .isEqualTo((double) (started + 15_000 + 240_000));
    assertThat(raw.pttl("{wg:deals}:spaces")).isBetween(250_000L, 255_000L);
  }

  @Test
  void keySpacesStayForL2TtlAfterTheirLastHeartbeatAndTheLongestTtlWins() {
    AgentRegistry canaryAgent = new AgentRegistry(connection, canary, new AgentInfo("c", "shop",
        "5c4b", "bbbbbbbbbbbb", "1.2.3", clock.millis(), clock.millis()), clock,
        Duration.ofMinutes(10));
    AgentRegistry stableAgent = agent("s", "7d9f", stable);
    canaryAgent.heartbeat();
    long canaryUntil = clock.millis() + 15_000 + 600_000;
    clock.advance(Duration.ofMinutes(5));
    stableAgent.heartbeat();
    assertThat(raw.zrange("{wg:deals}:spaces", 0, -1))
        .containsExactly("aaaaaaaaaaaa", "bbbbbbbbbbbb");
    assertThat(raw.zscore("{wg:deals}:spaces", "bbbbbbbbbbbb")).isEqualTo((double) canaryUntil);

    clock.advance(Duration.ofMinutes(6)); // the canary's values have expired
    stableAgent.heartbeat();
    assertThat(raw.zrange("{wg:deals}:spaces", 0, -1)).containsExactly("aaaaaaaaaaaa");
  }

  @Test
  void eachHeartbeatPushesExpiresAtForward() {
    AgentRegistry a = agent("a", "7d9f", stable);
    a.heartbeat();
    clock.advance(Duration.ofSeconds(5));
    a.heartbeat();
    AgentInfo entry = AgentInfo.fromJson(raw.hget("{wg:deals}:agents", "shop/a"));
    assertThat(entry.expiresAt()).isEqualTo(clock.millis() + 15_000);
    assertThat(entry.startedAt()).isEqualTo(clock.millis() - 5_000);
  }

  @Test
  void agentsOfTwoTemplateHashesAreBothListedWithTheirSchemaHash() {
    agent("deals-7d9f-a", "7d9f", stable).heartbeat();
    agent("deals-5c4b-a", "5c4b", canary).heartbeat();

    assertThat(agent("reader", "x", stable).entries())
        .extracting(AgentInfo::pod, AgentInfo::podTemplateHash, AgentInfo::schemaHash)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("deals-7d9f-a", "7d9f", "aaaaaaaaaaaa"),
            org.assertj.core.groups.Tuple.tuple("deals-5c4b-a", "5c4b", "bbbbbbbbbbbb"));
  }

  @Test
  void podsOfOneNameInTwoNamespacesKeepApartEntries() {
    AgentRegistry staging = agent("staging", "deals-7d9f-a", "7d9f", stable);
    AgentRegistry production = agent("production", "deals-7d9f-a", "7d9f", canary);
    staging.heartbeat();
    production.heartbeat();

    assertThat(raw.hkeys("{wg:deals}:agents"))
        .containsExactlyInAnyOrder("staging/deals-7d9f-a", "production/deals-7d9f-a");
    assertThat(staging.deregister()).isTrue();
    assertThat(AgentInfo.fromJson(raw.hget("{wg:deals}:agents", "production/deals-7d9f-a"))
        .schemaHash()).isEqualTo("bbbbbbbbbbbb");
  }

  @Test
  void aStoppedAgentIsRemovedAtOnce() {
    AgentRegistry a = agent("a", "7d9f", stable);
    AgentRegistry b = agent("b", "7d9f", stable);
    a.heartbeat();
    b.heartbeat();
    assertThat(a.deregister()).isTrue();
    assertThat(raw.hkeys("{wg:deals}:agents")).containsExactly("shop/b");
    assertThat(a.deregister()).isFalse();
  }

  @Test
  void aCrashedAgentIsDeadAfter15SecondsAndDeletedByTheFleetsOneSweepAMinuteAfterThat() {
    AgentRegistry crashed = agent("crashed", "7d9f", stable);
    AgentRegistry alive = agent("alive", "7d9f", stable);
    crashed.heartbeat(); // and then nothing more

    clock.advance(Duration.ofSeconds(16));
    alive.heartbeat();
    AgentInfo dead = AgentInfo.fromJson(raw.hget("{wg:deals}:agents", "shop/crashed"));
    assertThat(dead.isLiveAt(clock.millis())).isFalse();
    assertThat(AgentInfo.fromJson(raw.hget("{wg:deals}:agents", "shop/alive")).isLiveAt(clock.millis()))
        .isTrue();

    clock.advance(Duration.ofSeconds(59)); // dead for 60 s: kept
    assertThat(alive.heartbeat()).isZero();
    assertThat(raw.hkeys("{wg:deals}:agents")).containsExactlyInAnyOrder("shop/crashed", "shop/alive");

    clock.advance(Duration.ofSeconds(2)); // dead for over 60 s, but swept a minute ago at most
    assertThat(alive.heartbeat()).isZero();
    clock.advance(Duration.ofSeconds(59)); // the next sweep, once a minute for the whole fleet
    assertThat(alive.heartbeat()).isEqualTo(1);
    assertThat(raw.hkeys("{wg:deals}:agents")).containsExactly("shop/alive");
  }

  @Test
  void aStoppingProcessDoesNotRemoveTheEntryOfANewerPodOfTheSameName() {
    AgentRegistry old = agent("deals-0", "7d9f", stable);
    old.heartbeat();
    clock.advance(Duration.ofSeconds(1));
    AgentRegistry restarted = agent("deals-0", "7d9f", stable);
    restarted.heartbeat();
    assertThat(old.deregister()).isFalse();
    assertThat(raw.hexists("{wg:deals}:agents", "shop/deals-0")).isTrue();
  }

  @Test
  void entriesItCannotParseAreLeftAlone() {
    raw.hset("{wg:deals}:agents", Map.of("future", "{\"pod\":\"future\",\"expiresAt\":\"soon\"}",
        "garbage", "not json"));
    AgentRegistry a = agent("a", "7d9f", stable);
    clock.advance(Duration.ofHours(2));
    a.heartbeat();
    assertThat(raw.hkeys("{wg:deals}:agents")).containsExactlyInAnyOrder("shop/a", "future", "garbage");
    assertThat(a.entries()).extracting(AgentInfo::pod).containsExactly("a");
  }
}
