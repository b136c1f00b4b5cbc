package io.warmgate.bench.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SamplesTest {

  @Test
  void percentilesAreNearestRankOverTheSamplesInAnyOrder() {
    Samples samples = new Samples();
    for (long millis : new long[] {7, 3, 10, 1, 9, 2, 8, 4, 6, 5}) {
      samples.addNanos(millis * 1_000_000);
    }
    assertThat(samples.p50()).isEqualTo(5.0);
    assertThat(samples.p95()).isEqualTo(10.0);
    assertThat(samples.max()).isEqualTo(10.0);
    assertThat(samples.percentile(0)).isEqualTo(1.0);
  }

  @Test
  void noSamplesHaveNoPercentiles() {
    assertThat(new Samples().p50()).isNaN();
    assertThat(new Samples().cell()).isEqualTo("n/a");
  }
}
