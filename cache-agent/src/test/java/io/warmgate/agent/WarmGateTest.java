package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarmGateTest {

  private final CountingOrigin origin = new CountingOrigin().put("a", "A");

  @Test
  void buildWithoutCacheNameIsRefusedWithTheFix() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cacheName(\"deals\")")
        .hasMessageContaining("WARMGATE_CACHE_NAME");
  }

  @Test
  void invalidCacheNameIsRefused() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).cacheName("deals:v2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'deals:v2'");
  }

  @Test
  void refreshAheadNotShorterThanL2TtlIsRefused() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).cacheName("c")
        .l2Ttl(Duration.ofSeconds(30)).refreshAhead(Duration.ofSeconds(30)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refreshAhead (PT30S) must be shorter than l2Ttl (PT30S)");
  }

  @Test
  void nonPositiveDurationsAreRefusedNamingTheSetting() {
    WarmGate<String> b = WarmGate.newBuilder(String.class, origin);
    assertThatThrownBy(() -> b.l1Ttl(Duration.ZERO)).hasMessage("l1Ttl must be positive: PT0S");
    assertThatThrownBy(() -> b.staleIfError(Duration.ofSeconds(-1)))
        .hasMessage("staleIfError must not be negative: PT-1S");
    assertThatThrownBy(() -> b.fillWait(Duration.ofMillis(-1)))
        .hasMessage("fillWait must not be negative: PT-0.001S");
    assertThatThrownBy(() -> b.l1MaximumSize(0)).hasMessage("l1MaximumSize must be positive: 0");
  }

  @Test
  void aHotSamplePeriodThatIsNotAPowerOfTwoUpTo1024IsRefused() {
    WarmGate<String> b = WarmGate.newBuilder(String.class, origin);
    for (int period : new int[] {0, 3, 2048}) {
      assertThatThrownBy(() -> b.hotSamplePeriod(period))
          .hasMessage("hotSamplePeriod must be a power of two from 1 to 1024: " + period);
    }
    b.hotSamplePeriod(1).hotSamplePeriod(1024);
  }

  @Test
  void anOriginWhoseTimeoutIsNotPositiveIsRefusedAtBuild() {
    Origin<String> noDeadline = new Origin<String>() {
      @Override
      public Map<String, String> loadAll(java.util.Collection<String> ids) {
        return Map.of();
      }

      @Override
      public Duration timeout() {
        return Duration.ZERO;
      }

      @Override
      public String toString() {
        return "ZeroTimeoutOrigin";
      }
    };
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, noDeadline).cacheName("c").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the origin's timeout() must be positive, got PT0S from "
            + "ZeroTimeoutOrigin");
  }

  @Test
  void invalidValkeyUriIsRefused() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).valkeyUri("not a uri"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("valkeyUri 'not a uri' is invalid");
  }

  @Test
  void fromConfigBuildsACacheNamedAfterTheVariable() {
    WarmGateConfig config = WarmGateConfig.from(Map.of("WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_L1_TTL", "10s"));
    ManualClock clock = new ManualClock();
    try (TieredCache<String> cache = WarmGate.fromConfig(config, String.class, origin).clock(clock).build()) {
      assertThat(cache.name()).isEqualTo("deals");
      assertThat(cache.schemaHash()).matches("[0-9a-f]{12}");
      cache.get("a");
      clock.advance(Duration.ofSeconds(11));
      cache.get("a");
      assertThat(origin.calls()).as("WARMGATE_L1_TTL=10s applied").isEqualTo(2);
    }
  }

  @Test
  void keySpaceVersionMovesTheCacheToAnotherSchemaHash() {
    WarmGateConfig config = WarmGateConfig.from(Map.of("WARMGATE_CACHE_NAME", "deals",
        "WARMGATE_KEY_SPACE_VERSION", "2"));
    try (TieredCache<String> plain = WarmGate.newBuilder(String.class, origin).cacheName("deals")
            .build();
        TieredCache<String> fromEnv = WarmGate.fromConfig(config, String.class, origin).build();
        TieredCache<String> built = WarmGate.newBuilder(String.class, origin).cacheName("deals")
            .keySpaceVersion("2").build()) {
      assertThat(fromEnv.schemaHash()).isNotEqualTo(plain.schemaHash())
          .isEqualTo(built.schemaHash());
    }
  }

  @Test
  void malformedKeySpaceVersionIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> WarmGate.newBuilder(String.class, origin).keySpaceVersion("v 2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keySpaceVersion 'v 2' is invalid: expected 1 to 63 letters, digits, '.', "
            + "'_' or '-', such as 2 or 2026-03-cents");
  }
}
