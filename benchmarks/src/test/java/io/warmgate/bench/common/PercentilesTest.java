package io.warmgate.bench.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PercentilesTest {

  private static final long[] TEN = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

  @Test
  void nearestRankIsTheSmallestSampleWithAtLeastThatShareAtOrBelowIt() {
    assertThat(Percentiles.nearestRank(TEN, 0.50)).isEqualTo(5);
    assertThat(Percentiles.nearestRank(TEN, 0.51)).isEqualTo(6);
    assertThat(Percentiles.nearestRank(TEN, 0.99)).isEqualTo(10);
    assertThat(Percentiles.nearestRank(TEN, 1.0)).isEqualTo(10);
    assertThat(Percentiles.nearestRank(TEN, 0.0)).isEqualTo(1);
  }

  @Test
  void fractionalSamplesRankAsWholeOnesDo() {
    double[] samples = {0.5, 1.5, 2.5, 3.5};
    assertThat(Percentiles.nearestRank(samples, 0.50)).isEqualTo(1.5);
    assertThat(Percentiles.nearestRank(samples, 0.95)).isEqualTo(3.5);
    assertThat(Percentiles.nearestRank(samples, 0.0)).isEqualTo(0.5);
  }

  @Test
  void noSamplesGiveZero() {
    assertThat(Percentiles.nearestRank(new long[0], 0.99)).isZero();
    assertThat(Percentiles.nearestRank(new double[0], 0.99)).isZero();
  }
}
