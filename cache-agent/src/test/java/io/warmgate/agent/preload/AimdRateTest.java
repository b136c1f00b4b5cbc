package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The adaptive preload rate, on a clock the test moves. */
class AimdRateTest {

  private static final long MS = 1_000_000L;
  private long now = 5_000 * MS;

  private AimdRate aimd(double ceiling) {
    return new AimdRate(ceiling, () -> now);
  }

  /** Three batches of {@code ms} at 100 ms intervals: the baseline. */
  private void baseline(AimdRate aimd, long ms) {
    for (int i = 0; i < AimdRate.BASELINE_SAMPLES; i++) {
      now += 100 * MS;
      aimd.succeeded(ms * MS);
    }
  }

  @Test
  void startsAtATenthOfTheCeiling() {
    assertThat(aimd(1000).rate()).isEqualTo(100);
    assertThat(aimd(5).rate()).isEqualTo(AimdRate.FLOOR);
  }

  @Test
  void theBaselineIsTheMedianOfTheFirstThreeBatches() {
    AimdRate aimd = aimd(1000);
    now += 100 * MS;
    aimd.succeeded(30 * MS);
    now += 100 * MS;
    aimd.succeeded(500 * MS); // one outlier does not make the baseline
    now += 100 * MS;
    aimd.succeeded(20 * MS);
    assertThat(aimd.baselineNanos()).isEqualTo(30 * MS);
  }

  @Test
  void growsByATwentiethOfTheCeilingPerSecondWhileTheOriginKeepsUp() {
    AimdRate aimd = aimd(1000);
    baseline(aimd, 20);
    double before = aimd.rate();
    for (int i = 0; i < 10; i++) {
      now += 100 * MS;
      aimd.succeeded(20 * MS);
    }
    assertThat(aimd.rate()).isCloseTo(before + 50, within(1e-6));
    assertThat(aimd.last()).isEqualTo("increasing");
  }

  @Test
  void neverExceedsTheCeiling() {
    AimdRate aimd = aimd(200);
    baseline(aimd, 20);
    for (int i = 0; i < 100; i++) {
      now += 1000 * MS;
      aimd.succeeded(20 * MS);
      assertThat(aimd.rate()).isLessThanOrEqualTo(200);
    }
    assertThat(aimd.rate()).isEqualTo(200);
    assertThat(aimd.last()).isEqualTo("at the ceiling");
  }

  @Test
  void halvesWhenTheSmoothedLatencyPassesOneAndAQuarterTimesTheBaseline() {
    AimdRate aimd = aimd(1000);
    baseline(aimd, 20);
    now += 10_000 * MS;
    aimd.succeeded(20 * MS);
    double before = aimd.rate();
    now += 100 * MS;
    aimd.succeeded(29 * MS); // smoothed 24.5 ms: under 25
    assertThat(aimd.rate()).isGreaterThanOrEqualTo(before);
    now += 100 * MS;
    double grown = aimd.rate();
    aimd.succeeded(45 * MS); // smoothed 34.75 ms: over 25
    assertThat(aimd.rate()).isEqualTo(grown / 2);
    assertThat(aimd.last()).startsWith("halved: origin latency 35 ms over 1.25 × its baseline 20 ms");
  }

  @Test
  void halvesAtMostOncePerCoolDownAndDoesNotGrowMeanwhile() {
    AimdRate aimd = aimd(1000);
    baseline(aimd, 20);
    now += 10_000 * MS;
    aimd.succeeded(20 * MS);
    double full = aimd.rate();
    now += 100 * MS;
    aimd.failed();
    assertThat(aimd.rate()).isEqualTo(full / 2);
    for (int i = 0; i < 5; i++) {
      now += 100 * MS;
      aimd.succeeded(200 * MS); // still slow, within the cool-down (1 s)
    }
    assertThat(aimd.rate()).isEqualTo(full / 2);
    now += 1000 * MS;
    aimd.succeeded(200 * MS);
    assertThat(aimd.rate()).isEqualTo(full / 4);
  }

  @Test
  void anOriginErrorHalvesAndTheRateRecoversGradually() {
    AimdRate aimd = aimd(1000);
    baseline(aimd, 20);
    now += 20_000 * MS;
    aimd.succeeded(20 * MS);
    assertThat(aimd.rate()).isEqualTo(1000);
    now += 100 * MS;
    aimd.failed();
    assertThat(aimd.rate()).isEqualTo(500);
    assertThat(aimd.last()).isEqualTo("halved: origin error");
    // 50 ids/s more per second: back to the ceiling ten seconds later, not at once.
    now += 5_000 * MS;
    aimd.succeeded(20 * MS);
    assertThat(aimd.rate()).isCloseTo(750, within(1e-6));
    now += 5_000 * MS;
    aimd.succeeded(20 * MS);
    assertThat(aimd.rate()).isEqualTo(1000);
  }

  @Test
  void neverFallsBelowTheFloor() {
    AimdRate aimd = aimd(10);
    for (int i = 0; i < 20; i++) {
      now += 2_000 * MS;
      aimd.failed();
    }
    assertThat(aimd.rate()).isEqualTo(AimdRate.FLOOR);
  }

  @Test
  void aLowerCeilingLowersTheRateAtOnce() {
    AimdRate aimd = aimd(1000);
    baseline(aimd, 20);
    now += 20_000 * MS;
    aimd.succeeded(20 * MS);
    aimd.ceiling(300);
    assertThat(aimd.rate()).isEqualTo(300);
  }

  @Test
  void aCeilingBelowTheFloorIsRefused() {
    assertThatThrownBy(() -> aimd(0.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ceiling must be a finite number of ids per second >= 1.0: 0.5");
  }
}
