package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The origin circuit breaker: when it opens, what an open breaker serves and refuses, probes. */
class OriginBreakerTest {

  private static final IllegalStateException DOWN = new IllegalStateException("spanner unavailable");

  private final ManualClock clock = new ManualClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CountingOrigin origin = new CountingOrigin().put("a", "A").put("b", "B").put("c", "C");
  private TieredCache<String> cache = builder().build();

  private WarmGate<String> builder() {
    return WarmGate.newBuilder(String.class, origin)
        .cacheName("test")
        .clock(clock)
        .meterRegistry(registry);
  }

  @AfterEach
  void close() {
    cache.close();
  }

  private double state() {
    return Meters.gauge(registry, "warmgate.origin.breaker.state");
  }

  private long skipped() {
    return Meters.count(registry, "warmgate.origin.skipped");
  }

  /** Fails {@code n} lookups of ids nothing is held for, each with one origin call. */
  private void failUncached(int n) {
    for (int i = 0; i < n; i++) {
      String id = "x" + i;
      assertThatThrownBy(() -> cache.get(id)).isInstanceOf(CacheLoadException.class);
    }
  }

  @Test
  void opensWhenHalfOfAtLeastFiveCallsFailed() {
    origin.failWith(DOWN);
    failUncached(4);
    assertThat(state()).as("fewer than 5 calls: still closed").isZero();

    failUncached(1);
    assertThat(state()).isEqualTo(1);
    assertThat(origin.calls()).isEqualTo(5);
    assertThat(skipped()).isZero();
  }

  /**
   * An origin that answers, but later than 80 % of its timeout: saturated. Its calls open the
   * breaker as failures would, and the refusal says so. Real time: 5 calls of 230 ms against a
   * 200 ms threshold (the origin's timeout is 250 ms).
   */
  @Test
  void slowCallsOpenItAndTheRefusalSaysTheyWereSlow() {
    cache.close();
    Origin<String> slow = new Origin<>() {
      @Override
      public Map<String, String> loadAll(java.util.Collection<String> ids) throws InterruptedException {
        Thread.sleep(230);
        return Map.of();
      }

      @Override
      public Duration timeout() {
        return Duration.ofMillis(250);
      }
    };
    // A registry of its own: the gauge of the closed cache would stay in the shared one.
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    cache = WarmGate.newBuilder(String.class, slow).cacheName("test").clock(clock)
        .meterRegistry(meters).build();
    for (int i = 0; i < 4; i++) {
      assertThat(cache.get("slow" + i)).as("a slow answer is still an answer").isNull();
    }
    assertThat(Meters.gauge(meters, "warmgate.origin.breaker.state")).as("4 slow calls: closed").isZero();
    assertThat(cache.get("slow4")).isNull();
    assertThat(Meters.gauge(meters, "warmgate.origin.breaker.state")).as("open after 5 slow calls").isEqualTo(1);

    assertThatThrownBy(() -> cache.get("next"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("its circuit breaker is open after 5 of its last 5 calls took longer "
            + "than 0.2 s (80 % of the origin's timeout): the origin is saturated and probes it again");
  }

  @Test
  void openBreakerFailsAnUncachedIdAtOnceNamingItAndWhenItProbesAgain() {
    origin.failWith(DOWN);
    failUncached(5);
    clock.advance(Duration.ofMillis(1_500));

    assertThatThrownBy(() -> cache.get("new"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'new'")
        .hasMessageContaining("the origin was not called: its circuit breaker is open after recent "
            + "failures and probes it again in 3.5 s")
        .hasMessageContaining("no stale value is held")
        .hasCause(DOWN);
    assertThat(origin.calls()).isEqualTo(5);
    assertThat(skipped()).isEqualTo(1);
    assertThat(Meters.count(registry, "warmgate.origin.errors")).as("a skipped call is no error").isEqualTo(5);
  }

  @Test
  void openBreakerServesAHeldStaleValueWithoutCallingTheOrigin() {
    assertThat(cache.get("a")).isEqualTo("A");
    clock.advance(Duration.ofSeconds(61)); // L1 no longer fresh; staleIfError (5 min) not over
    origin.failWith(DOWN);
    for (int i = 0; i < 4; i++) { // with the first load of "a", 4 of 5 calls failed
      assertThat(cache.get("a")).as("stale after an origin error").isEqualTo("A");
    }
    assertThat(state()).isEqualTo(1);
    int calls = origin.calls();

    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(cache.getAll(List.of("a"))).containsEntry("a", "A");
    assertThat(origin.calls()).as("open: the origin is not called").isEqualTo(calls);
    assertThat(skipped()).isEqualTo(2);
    assertThat(Meters.count(registry, "warmgate.stale.served")).isEqualTo(6);
  }

  @Test
  void openBreakerNeverServesAValueOlderThanStaleIfError() {
    cache.get("a");
    clock.advance(Duration.ofSeconds(61));
    origin.failWith(DOWN);
    failUncached(5);
    clock.advance(Duration.ofMinutes(5)); // past staleIfError, and past the breaker wait
    failUncached(5); // the probes fail: open again
    assertThat(state()).isEqualTo(1);

    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(CacheLoadException.class)
        .hasMessageContaining("'a'")
        .hasMessageContaining("circuit breaker is open")
        .hasMessageContaining("no stale value is held"); // L1 keeps values for staleIfError only
  }

  @Test
  void successfulHalfOpenProbesCloseIt() {
    origin.failWith(DOWN);
    failUncached(5);
    origin.heal();
    clock.advance(Duration.ofSeconds(4));
    assertThatThrownBy(() -> cache.get("a")).hasMessageContaining("probes it again in 1.0 s");

    clock.advance(Duration.ofMillis(1_001)); // resilience4j probes once the wait is over
    assertThat(cache.get("a")).isEqualTo("A");
    assertThat(state()).as("one of two probes done").isEqualTo(2);
    assertThat(cache.get("b")).isEqualTo("B");
    assertThat(state()).isZero();
    assertThat(cache.get("c")).isEqualTo("C");
  }

  @Test
  void failedHalfOpenProbeOpensItAgain() {
    origin.failWith(DOWN);
    failUncached(5);
    clock.advance(Duration.ofMillis(5_001));
    int calls = origin.calls();

    failUncached(2);
    assertThat(origin.calls()).as("one failed probe opens it again").isEqualTo(calls + 1);
    assertThat(state()).isEqualTo(1);
    assertThatThrownBy(() -> cache.get("a")).hasMessageContaining("probes it again in 5.0 s");
  }

  @Test
  void notFoundIsNoFailure() {
    for (int i = 0; i < 6; i++) {
      assertThat(cache.get("missing-" + i)).isNull();
    }
    origin.failWith(DOWN);
    failUncached(4); // 4 of the last 10 calls failed
    assertThat(state()).isZero();
    origin.heal();
    assertThat(cache.get("a")).isEqualTo("A");
  }

  @Test
  void waitIsConfigurable() {
    cache.close();
    cache = builder().originBreakerWait(Duration.ofSeconds(30)).build();
    origin.failWith(DOWN);
    failUncached(5);
    origin.heal();
    clock.advance(Duration.ofSeconds(29));
    assertThatThrownBy(() -> cache.get("a")).hasMessageContaining("probes it again in 1.0 s");

    clock.advance(Duration.ofMillis(1_001)); // resilience4j probes once the wait is over
    assertThat(cache.get("a")).isEqualTo("A");
    assertThatThrownBy(() -> builder().originBreakerWait(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("originBreakerWait must be positive: PT0S");
  }

  @Test
  void waitIsReadFromTheEnvironment() {
    cache.close();
    WarmGateConfig config = WarmGateConfig.from(Map.of("WARMGATE_CACHE_NAME", "test",
        "WARMGATE_ORIGIN_BREAKER_WAIT", "20s"));
    cache = WarmGate.fromConfig(config, String.class, origin).clock(clock).meterRegistry(registry).build();
    origin.failWith(DOWN);
    failUncached(5);

    assertThatThrownBy(() -> cache.get("a")).hasMessageContaining("probes it again in 20.0 s");
  }
}
