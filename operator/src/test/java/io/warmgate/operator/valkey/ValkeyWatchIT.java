package io.warmgate.operator.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ValkeyClients#watch}: one probe per endpoint on a timer, however many policies use it,
 * naming the policies of an endpoint whose outcome changed; on a real Redis that is stopped and
 * started again.
 */
class ValkeyWatchIT {

  static final Duration EVERY = Duration.ofMillis(200);

  @RegisterExtension
  final RedisExtension redis = new RedisExtension();

  ValkeyClients clients;
  final List<Set<String>> changes = new CopyOnWriteArrayList<>();

  @BeforeEach
  void open() {
    clients = new ValkeyClients(Duration.ofSeconds(1));
  }

  @AfterEach
  void close() {
    clients.close();
  }

  @Test
  void everyPolicyOfAnEndpointIsNamedWhenItGoesDownAndWhenItComesBack() {
    clients.watch(EVERY, changes::add);
    ValkeyEndpoint endpoint = endpoint(null);
    assertThat(clients.probe("ns/a", endpoint).reachable()).isTrue();
    assertThat(clients.probe("ns/b", endpoint).reachable()).isTrue();
    await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
        .untilAsserted(() -> assertThat(changes).as("changes while nothing changed").isEmpty());

    redis.stop();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(changes).containsExactly(Set.of("ns/a", "ns/b")));

    redis.start();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(changes).containsExactly(Set.of("ns/a", "ns/b"), Set.of("ns/a", "ns/b")));
  }

  @Test
  void manyPoliciesOnOneEndpointCostOneProbePerInterval() {
    clients.watch(EVERY, changes::add);
    ValkeyEndpoint endpoint = endpoint(null);
    IntStream.range(0, 100).forEach(i -> clients.probe("ns/p" + i, endpoint));
    assertThat(clients.openClients()).isEqualTo(1);

    long before = redis.server().commandsProcessed();
    sleep(Duration.ofSeconds(2));
    long commands = redis.server().commandsProcessed() - before;

    // 2 s / 200 ms = 10 probes of PING and INFO cluster (and this test's two INFO); a probe per
    // policy would be 2,000 commands.
    assertThat(commands).as("commands over 2 s, 100 policies on one endpoint").isBetween(6L, 40L);
  }

  @Test
  void policiesWithOtherCredentialsGetAClientOfTheirOwn() {
    clients.probe("ns/a", endpoint("one"));
    clients.probe("ns/b", endpoint("two"));
    clients.probe("ns/c", endpoint("one"));

    assertThat(clients.openClients()).isEqualTo(2);
  }

  @Test
  void theLastPolicyLeavingStopsTheEndpointsProbes() {
    clients.watch(EVERY, changes::add);
    clients.probe("ns/a", endpoint(null));
    clients.release("ns/a");
    assertThat(clients.openClients()).isZero();

    long before = redis.server().commandsProcessed();
    sleep(Duration.ofSeconds(1));
    // Only this test's INFO commands (and no probe of 2 commands every 200 ms).
    assertThat(redis.server().commandsProcessed() - before).isLessThanOrEqualTo(2);
  }

  @Test
  void aNonPositiveIntervalIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> clients.watch(Duration.ZERO, changes::add))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S").hasMessageContaining("WARMGATE_VALKEY_RECHECK_INTERVAL");
  }

  private ValkeyEndpoint endpoint(String password) {
    return new ValkeyEndpoint(List.of(redis.host() + ":" + redis.port()), false, false, true,
        null, null, password == null ? null : password.toCharArray());
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
