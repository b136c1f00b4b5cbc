package io.warmgate.operator.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AddressAllowlistTest {

  static final AddressAllowlist DEFAULT = AddressAllowlist.parse(AddressAllowlist.IN_CLUSTER);

  @Test
  void theDefaultAllowsServiceNamesOfTheCluster() {
    assertThat(DEFAULT.allows("valkey.caching.svc:6379")).isTrue();
    assertThat(DEFAULT.allows("valkey.caching.svc.cluster.local:6379")).isTrue();
    assertThat(DEFAULT.allows("valkey-0.valkey-headless.caching.svc.cluster.local:6380")).isTrue();
    assertThat(DEFAULT.allows("Valkey.Caching.SVC:6379")).isTrue();
  }

  @Test
  void theDefaultRefusesAddressesOutsideTheCluster() {
    assertThat(DEFAULT.allows("127.0.0.1:6379")).isFalse();
    assertThat(DEFAULT.allows("localhost:8080")).isFalse();
    assertThat(DEFAULT.allows("valkey:6379")).as("a bare name resolves through search domains")
        .isFalse();
    assertThat(DEFAULT.allows("cache.example.com:6379")).isFalse();
    assertThat(DEFAULT.allows("valkey.svc.example.com:6379")).isFalse();
    assertThat(DEFAULT.allows("[::1]:6379")).isFalse();
    assertThat(DEFAULT.allows("svc:6379")).isFalse();
    assertThat(DEFAULT.allows(null)).isFalse();
    assertThat(DEFAULT.allows("valkey.caching.svc")).as("no port").isFalse();
  }

  @Test
  void aPatternWithAPortAllowsOnlyThatPort() {
    AddressAllowlist list = AddressAllowlist.parse("*.svc:6379, 127.0.0.1:7000");

    assertThat(list.allows("valkey.caching.svc:6379")).isTrue();
    assertThat(list.allows("valkey.caching.svc:6380")).isFalse();
    assertThat(list.allows("127.0.0.1:7000")).isTrue();
    assertThat(list.allows("127.0.0.1:7001")).isFalse();
    assertThat(list.allows("127.0.0.10:7000")).isFalse();
    assertThat(list.describe()).isEqualTo("*.svc:6379,127.0.0.1:7000");
  }

  @Test
  void anIpv6LiteralMatchesItsBracketedPattern() {
    AddressAllowlist list = AddressAllowlist.parse("[::1]");

    assertThat(list.allows("[::1]:6379")).isTrue();
    assertThat(list.allows("127.0.0.1:6379")).isFalse();
  }

  @Test
  void anEmptySettingAllowsNothing() {
    assertThat(AddressAllowlist.parse("").allows("valkey.caching.svc:6379")).isFalse();
  }

  @Test
  void aMalformedPatternIsRefusedNamingIt() {
    assertThatThrownBy(() -> AddressAllowlist.parse("*.svc, http://valkey:6379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WARMGATE_VALKEY_ALLOWED_ADDRESSES")
        .hasMessageContaining("'http://valkey:6379'")
        .hasMessageContaining("*.svc.cluster.local:6379");
    assertThatThrownBy(() -> AddressAllowlist.parse("valkey.svc:port"))
        .hasMessageContaining("'valkey.svc:port'");
  }
}
