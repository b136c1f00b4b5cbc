package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tail's shape: fitted to the hot set's rates, then cut into ids. */
class TailShapeTest {

  /** Rates of a Zipf law with exponent {@code s}: 1,000 × i^(−s) for ranks 1 to {@code k}. */
  static List<Double> zipf(int k, double s) {
    List<Double> rates = new ArrayList<>();
    for (int i = 1; i <= k; i++) {
      rates.add(1000 * Math.pow(i, -s));
    }
    return rates;
  }

  @Test
  void aZipfHotSetGivesItsExponentAndItsRateAtTheLastRank() {
    TailShape shape = TailShape.of(zipf(10_000, 1.21));
    assertThat(shape.rank()).isEqualTo(10_000);
    assertThat(shape.exponent()).isCloseTo(1.21, within(1e-9));
    assertThat(shape.rate()).isCloseTo(1000 * Math.pow(10_000, -1.21), within(1e-9));
  }

  @Test
  void aFlatHotSetHasAFlatTail() {
    TailShape shape = TailShape.of(Collections.nCopies(100, 2.0));
    assertThat(shape.exponent()).isCloseTo(0, within(1e-9));
    assertThat(shape.rate()).isCloseTo(2, within(1e-9));
  }

  @Test
  void tooFewPositiveRatesFitNothing() {
    assertThat(TailShape.of(List.of(5.0, 4.0, 3.0))).isNull();
    assertThat(TailShape.of(Collections.nCopies(100, 0.0))).isNull();
    assertThat(TailShape.of(List.of())).isNull();
  }

  @Test
  void theTailsIdsAddUpToItsLookupsAtTheRatesTheLawGives() {
    TailShape shape = TailShape.of(zipf(1_000, 0.9));
    double lookups = 5_000;
    TailShape.Ids ids = shape.ids(lookups);
    double sum = ids.blocks().stream().mapToDouble(b -> b.ids() * b.rate()).sum();
    assertThat(sum + ids.unexplained()).isCloseTo(lookups, within(1e-6));
    assertThat(ids.unexplained()).isZero();
    // The first tail id is looked up at about the law's rate at rank 1,001.
    assertThat(ids.blocks().get(0).rate()).isCloseTo(1000 * Math.pow(1_001, -0.9), within(0.01));
    // Rates fall from block to block.
    for (int b = 1; b < ids.blocks().size(); b++) {
      assertThat(ids.blocks().get(b).rate()).isLessThan(ids.blocks().get(b - 1).rate());
    }
  }

  @Test
  void lookupsASteepLawCannotAccountForAreLeftUnexplained() {
    // Exponent 3, 1 lookup/s at rank 10: the whole tail past it adds up to about 10 ÷ 2 = 5/s.
    TailShape shape = new TailShape(10, 1, 3);
    TailShape.Ids ids = shape.ids(100);
    assertThat(ids.unexplained()).isGreaterThan(90);
  }
}
