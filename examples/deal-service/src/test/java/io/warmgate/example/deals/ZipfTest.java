package io.warmgate.example.deals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfTest {

  @Test
  void lowRanksDominateAsTheDistributionSays() {
    Zipf zipf = new Zipf(1000, 1.1);
    SplittableRandom random = new SplittableRandom(7);
    int[] counts = new int[1001];
    int draws = 200_000;
    for (int i = 0; i < draws; i++) {
      counts[zipf.next(random)]++;
    }
    // P(1) = 1 / H(1000, 1.1) ≈ 0.179; P(1) / P(2) = 2^1.1 ≈ 2.14.
    assertThat(counts[1] / (double) draws).isBetween(0.175, 0.195);
    assertThat(counts[1] / (double) counts[2]).isBetween(2.0, 2.3);
    assertThat(counts[0]).isZero();
  }

  @Test
  void everyRankIsInRange() {
    Zipf zipf = new Zipf(3, 0.5);
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 10_000; i++) {
      assertThat(zipf.next(random)).isBetween(1, 3);
    }
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new Zipf(0, 1.1)).hasMessageContaining("n=0");
    assertThatThrownBy(() -> new Zipf(10, 0)).hasMessageContaining("s=0.0");
  }
}
