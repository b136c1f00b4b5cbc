package io.warmgate.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ConditionsTest {

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-02T03:04:05.678Z"));
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  };
  private final Conditions conditions = new Conditions(clock);
  private final CachePolicyStatus status = new CachePolicyStatus();

  @Test
  void removeDropsOnlyThatTypeAndSaysWhetherItWasThere() {
    conditions.set(status, 1, Conditions.READY, true, "Reconciled", "fine");
    conditions.set(status, 1, Conditions.CHANGES_FOLLOWED, false, "NoReader", "none");

    assertThat(Conditions.remove(status, Conditions.CHANGES_FOLLOWED)).isTrue();
    assertThat(Conditions.remove(status, Conditions.CHANGES_FOLLOWED)).isFalse();
    assertThat(status.getConditions()).extracting(Condition::getType)
        .containsExactly(Conditions.READY);
  }

  @Test
  void newConditionIsATransitionWithTimestampInUtcSeconds() {
    var transition = conditions.set(status, 3, Conditions.READY, true, "Reconciled", "fine");

    assertThat(transition).isPresent();
    assertThat(transition.get().previous()).isNull();
    assertThat(transition.get().statusChanged()).isTrue();
    Condition ready = Conditions.find(status, Conditions.READY).orElseThrow();
    assertThat(ready.getStatus()).isEqualTo("True");
    assertThat(ready.getReason()).isEqualTo("Reconciled");
    assertThat(ready.getMessage()).isEqualTo("fine");
    assertThat(ready.getObservedGeneration()).isEqualTo(3L);
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-02T03:04:05Z");
  }

  @Test
  void sameStatusKeepsLastTransitionTimeAndIsNoTransition() {
    conditions.set(status, 1, Conditions.READY, true, "Reconciled", "fine");
    later();

    var transition = conditions.set(status, 2, Conditions.READY, true, "Reconciled", "finer");

    assertThat(transition).isEmpty();
    Condition ready = Conditions.find(status, Conditions.READY).orElseThrow();
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-02T03:04:05Z");
    assertThat(ready.getMessage()).isEqualTo("finer");
    assertThat(ready.getObservedGeneration()).isEqualTo(2L);
  }

  @Test
  void reasonChangeIsATransitionButKeepsLastTransitionTime() {
    conditions.set(status, 1, Conditions.READY, false, "SecretNotFound", "no secret");
    later();

    var transition = conditions.set(status, 1, Conditions.READY, false, "AuthFailed", "bad pw");

    assertThat(transition).isPresent();
    assertThat(transition.get().statusChanged()).isFalse();
    assertThat(transition.get().previous().getReason()).isEqualTo("SecretNotFound");
    assertThat(Conditions.find(status, Conditions.READY).orElseThrow().getLastTransitionTime())
        .isEqualTo("2026-01-02T03:04:05Z");
  }

  @Test
  void statusChangeMovesLastTransitionTime() {
    conditions.set(status, 1, Conditions.L2_REACHABLE, true, "Connected", "ok");
    later();

    var transition =
        conditions.set(status, 1, Conditions.L2_REACHABLE, false, "ConnectionRefused", "down");

    assertThat(transition).isPresent();
    assertThat(transition.get().statusChanged()).isTrue();
    assertThat(Conditions.find(status, Conditions.L2_REACHABLE).orElseThrow()
        .getLastTransitionTime()).isEqualTo("2026-01-02T03:05:05Z");
  }

  @Test
  void keepsEachTypeOnceAndInPlace() {
    conditions.set(status, 1, Conditions.L2_REACHABLE, true, "Connected", "ok");
    conditions.set(status, 1, Conditions.READY, true, "Reconciled", "ok");
    conditions.set(status, 1, Conditions.L2_REACHABLE, false, "Timeout", "slow");

    assertThat(status.getConditions()).extracting(Condition::getType)
        .containsExactly("L2Reachable", "Ready");
    assertThat(Conditions.isTrue(status, Conditions.READY)).isTrue();
    assertThat(Conditions.isTrue(status, Conditions.L2_REACHABLE)).isFalse();
    assertThat(Conditions.isTrue(status, Conditions.WARMED)).isFalse();
  }

  @Test
  void unknownStatusIsSupported() {
    conditions.set(status, 1, Conditions.L2_REACHABLE, Condition.UNKNOWN, "NotChecked", "later");

    assertThat(Conditions.find(status, Conditions.L2_REACHABLE).orElseThrow().getStatus())
        .isEqualTo("Unknown");
  }

  private void later() {
    now.set(now.get().plus(1, ChronoUnit.MINUTES));
  }
}
