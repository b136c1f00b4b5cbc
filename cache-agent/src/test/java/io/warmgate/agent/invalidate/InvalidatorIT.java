package io.warmgate.agent.invalidate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.warmgate.agent.ManualClock;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.agent.registry.AgentInfo;
import io.warmgate.agent.registry.AgentRegistry;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The invalidator on a real redis-server that goes away: every step of a call, not only the
 * deletions, fails as documented ({@link IllegalStateException}, "call again").
 */
class InvalidatorIT {

  private static final KeySpace KEYS = new KeySpace("deals", "0123456789ab");

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private final ClientResources resources = DefaultClientResources.create();
  private ValkeyConnection<String> connection;
  private Invalidator invalidator;

  @BeforeEach
  void connect() throws Exception {
    redis.flushAll();
    connection = ValkeyConnection.open(ValkeyEndpoint.standalone(redis.uri()), StringCodec.UTF8,
        resources, Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    invalidator = new Invalidator(connection, KEYS, InstantSource.system(), Duration.ofSeconds(2));
  }

  @AfterEach
  void close() {
    connection.close();
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  /**
   * An aborted canary: its agents wrote values in their key space, then stopped (deregistered) or
   * were killed (their entries dead, then deleted). Those values live until l2Ttl, and a rollback
   * or retried canary within it would serve them, so an invalidation must still delete them, and
   * only until they have expired.
   */
  @Test
  void aKeySpaceWhoseAgentsAreGoneButWhoseValuesAreYoungerThanL2TtlIsInvalidated() {
    ManualClock clock = new ManualClock();
    Duration l2Ttl = Duration.ofMinutes(4);
    KeySpace canary = KEYS.withSchemaHash("bbbbbbbbbbbb");
    KeySpace killedCanary = KEYS.withSchemaHash("cccccccccccc");
    AgentRegistry stopped = canaryAgent("canary-a", canary, clock, l2Ttl);
    AgentRegistry killed = canaryAgent("canary-b", killedCanary, clock, l2Ttl);
    stopped.heartbeat();
    killed.heartbeat();
    RedisClusterCommands<String, String> raw = connection.sync();
    raw.set(canary.valueKey("deal-1"), "old row", SetArgs.Builder.px(l2Ttl.toMillis()));
    raw.set(killedCanary.valueKey("deal-1"), "old row", SetArgs.Builder.px(l2Ttl.toMillis()));
    assertThat(stopped.deregister()).isTrue();
    // Killed: dead 15 s after its last heartbeat, deleted by the stable agents a minute later.
    clock.advance(Duration.ofSeconds(90));
    canaryAgent("stable-a", KEYS, clock, l2Ttl).heartbeat();
    assertThat(raw.hkeys(KEYS.agentsKey())).containsExactly("shop/stable-a");

    Invalidator fresh = new Invalidator(connection, KEYS, clock, Duration.ofSeconds(2));
    assertThat(fresh.invalidate(List.of("deal-1"))).as("key spaces invalidated")
        .containsExactlyInAnyOrder(KEYS.schemaHash(), canary.schemaHash(),
            killedCanary.schemaHash());
    assertThat(raw.exists(canary.valueKey("deal-1"), killedCanary.valueKey("deal-1"))).isZero();

    // Once every value the canary could have written has expired, its key space is left alone.
    clock.advance(l2Ttl.plus(AgentRegistry.ENTRY_TTL));
    assertThat(new Invalidator(connection, KEYS, clock, Duration.ofSeconds(2))
        .invalidate(List.of("deal-2"))).containsExactly(KEYS.schemaHash());
  }

  private AgentRegistry canaryAgent(String pod, KeySpace space, ManualClock clock,
      Duration l2Ttl) {
    long now = clock.millis();
    return new AgentRegistry(connection, space,
        new AgentInfo(pod, "shop", "5c4b", space.schemaHash(), "1.2.3", now, now), clock, l2Ttl);
  }

  @Test
  void aValkeyThatIsDownFailsTheCallWithIllegalStateException() {
    assertThat(invalidator.invalidate(List.of("deal-1"))).containsExactly(KEYS.schemaHash());

    redis.stop();
    // The connection notices the server is gone and rejects commands at once.
    await().atMost(Duration.ofSeconds(5)).until(() -> !connection.isOpen());
    assertThatThrownBy(() -> invalidator.invalidate(List.of("deal-1")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cache 'deals'").hasMessageContaining("call again");

    redis.start();
    await().atMost(Duration.ofSeconds(40)).ignoreExceptionsInstanceOf(IllegalStateException.class)
        .until(() -> !invalidator.invalidate(List.of("deal-1")).isEmpty());
  }
}
