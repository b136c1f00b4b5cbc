package io.warmgate.agent.invalidate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.ValkeyConnection;
import io.warmgate.agent.l2.ValkeyEndpoint;
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
    connection = ValkeyConnection.open(ValkeyEndpoint.standalone(redis.uri()), StringCodec.UTF8,
        resources, Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    invalidator = new Invalidator(connection, KEYS, InstantSource.system(), Duration.ofSeconds(2));
  }

  @AfterEach
  void close() {
    connection.close();
    resources.shutdown(0, 2, TimeUnit.SECONDS);
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
