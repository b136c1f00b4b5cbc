package io.warmgate.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {

  @Test
  void defaultsWatchAllNamespacesWithLeaderElection() {
    OperatorSettings settings = OperatorSettings.fromEnvironment(
        Map.of("POD_NAMESPACE", "warmgate-system", "POD_NAME", "op-1"));

    assertThat(settings.namespaces()).isEmpty();
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaseNamespace()).isEqualTo("warmgate-system");
    assertThat(settings.leaseName()).isEqualTo("warmgate-operator");
    assertThat(settings.identity()).isEqualTo("op-1");
    assertThat(settings.httpPort()).isEqualTo(8080);
    assertThat(settings.valkeyRecheck()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.valkeyTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.lease()).isEqualTo(new OperatorSettings.LeaseTimings(
        Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2)));
  }

  @Test
  void leaseTimingsAreReadAndMustBeOrdered() {
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of("POD_NAMESPACE", "ns",
        "WARMGATE_LEASE_DURATION", "6s", "WARMGATE_LEASE_RENEW_DEADLINE", "4s",
        "WARMGATE_LEASE_RETRY_PERIOD", "500ms"));

    assertThat(settings.lease()).isEqualTo(new OperatorSettings.LeaseTimings(
        Duration.ofSeconds(6), Duration.ofSeconds(4), Duration.ofMillis(500)));
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("POD_NAMESPACE", "ns",
        "WARMGATE_LEASE_DURATION", "4s", "WARMGATE_LEASE_RENEW_DEADLINE", "4s")))
        .hasMessageContaining("WARMGATE_LEASE_DURATION (PT4S) > WARMGATE_LEASE_RENEW_DEADLINE");
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("POD_NAMESPACE", "ns",
        "WARMGATE_LEASE_RENEW_DEADLINE", "2s")))
        .hasMessageContaining("1.2 x WARMGATE_LEASE_RETRY_PERIOD (PT2S)");
  }

  @Test
  void readsListedNamespacesAndDurations() {
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_NAMESPACES", " team-a, team-b ,,",
        "WARMGATE_LEADER_ELECTION", "false",
        "WARMGATE_VALKEY_RECHECK_INTERVAL", "2s",
        "WARMGATE_HTTP_PORT", "0"));

    assertThat(settings.namespaces()).containsExactlyInAnyOrder("team-a", "team-b");
    assertThat(settings.leaderElection()).isFalse();
    assertThat(settings.valkeyRecheck()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.httpPort()).isZero();
  }

  @Test
  void errorsNameTheVariableAndTheFix() {
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "false", "WARMGATE_VALKEY_TIMEOUT", "2")))
        .hasMessageContaining("WARMGATE_VALKEY_TIMEOUT").hasMessageContaining("'2'");
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of(
        "WARMGATE_LEADER_ELECTION", "yes")))
        .hasMessageContaining("WARMGATE_LEADER_ELECTION='yes' must be true or false");
  }
}
