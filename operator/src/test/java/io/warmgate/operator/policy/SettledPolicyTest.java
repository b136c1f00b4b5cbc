package io.warmgate.operator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.status.Conditions;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/**
 * Which policies without a canary in progress wait for a change ({@link
 * CachePolicyReconciler#settled}) and which are passed again every recheck interval.
 */
class SettledPolicyTest {

  private final Conditions conditions = new Conditions(Clock.systemUTC());

  @Test
  void aReadyPolicyWaitsForAChange() {
    assertThat(CachePolicyReconciler.settled(new CachePolicySpec(), status(true, false)))
        .isTrue();
  }

  @Test
  void aPolicyThatIsNotReadyIsPassedAgain() {
    assertThat(CachePolicyReconciler.settled(new CachePolicySpec(), status(false, false)))
        .isFalse();
    assertThat(CachePolicyReconciler.settled(new CachePolicySpec(), new CachePolicyStatus()))
        .as("never reported").isFalse();
  }

  @Test
  void aReadyPolicyInConflictIsPassedAgainToSeeTheOtherGo() {
    assertThat(CachePolicyReconciler.settled(new CachePolicySpec(), status(true, true))).isFalse();
  }

  @Test
  void aReadyPolicyFollowingAChangeStreamIsPassedAgainToReadItsProgress() {
    CachePolicySpec spec = new CachePolicySpec();
    spec.setChangeStream(new ChangeStreamSpec("DealChanges", null));

    assertThat(CachePolicyReconciler.settled(spec, status(true, false))).isFalse();
  }

  private CachePolicyStatus status(boolean ready, boolean conflict) {
    CachePolicyStatus status = new CachePolicyStatus();
    conditions.set(status, 1, Conditions.READY, ready, ready ? "Reconciled" : "TargetNotFound",
        "test");
    conditions.set(status, 1, Conditions.CONFLICT, conflict ? Condition.TRUE : Condition.FALSE,
        conflict ? "GatedByAnotherPolicy" : "SolePolicy", "test");
    return status;
  }
}
