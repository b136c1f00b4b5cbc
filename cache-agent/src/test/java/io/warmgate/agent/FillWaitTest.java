package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FillWaitTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void theCeilingAppliesUntilAnOriginReadIsTimed() {
    assertThat(new FillWait(Duration.ofSeconds(2)).nanos()).isEqualTo(2_000 * MS);
  }

  @Test
  void steadyReadsBringTheWaitDownToAboutTheirDuration() {
    FillWait wait = new FillWait(Duration.ofSeconds(2));
    for (int i = 0; i < 50; i++) {
      wait.originRead(100 * MS);
    }
    assertThat(wait.nanos()).isBetween(100 * MS, 101 * MS);
  }

  @Test
  void jitterWidensTheWaitBeyondTheMean() {
    FillWait wait = new FillWait(Duration.ofSeconds(2));
    for (int i = 0; i < 50; i++) {
      wait.originRead((i % 2 == 0 ? 50 : 150) * MS);
    }
    // Mean about 100 ms, deviation about 50 ms: the wait covers the slow reads with room to spare.
    assertThat(wait.nanos()).isBetween(250 * MS, 320 * MS);
  }

  @Test
  void slowReadsNeverPushTheWaitPastTheCeiling() {
    FillWait wait = new FillWait(Duration.ofMillis(500));
    for (int i = 0; i < 20; i++) {
      wait.originRead(3_000 * MS);
    }
    assertThat(wait.nanos()).isEqualTo(500 * MS);
  }

  @Test
  void theWaitFollowsTheOriginWhenItSlowsDown() {
    FillWait wait = new FillWait(Duration.ofSeconds(5));
    for (int i = 0; i < 50; i++) {
      wait.originRead(20 * MS);
    }
    long fast = wait.nanos();
    for (int i = 0; i < 20; i++) {
      wait.originRead(1_000 * MS);
    }
    assertThat(fast).isLessThan(25 * MS);
    assertThat(wait.nanos()).isGreaterThan(1_000 * MS);
  }
}
