package io.warmgate.bench.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ModelledDealsTest {

  @Test
  void sizesTheInstanceSoThatTheSteadyTrafficUsesAThirdOfIt() {
    // 100 queries/s of 2,000 rows/s cost 0.5 × 100 + 0.5 × 2,000 = 1,050 single-row reads/s,
    // 0.046667 nodes at 100 % CPU; at 33 % that is 0.141414 nodes, 0.142 to the processing unit.
    assertThat(ModelledDeals.nodesFor(100, 2_000)).isEqualTo(0.142);
  }

  @Test
  void preloadsAtHalfTheRoomBetweenTheSteadyShareAndTheRecommendedLine() {
    // One node: 22,500 single-row reads/s; (65 % − 33 %) / 2 = 16 % of it is 3,600 reads/s,
    // 7,200 ids/s at half a read each (a row's share of the cost).
    assertThat(ModelledDeals.preloadRate(1)).isEqualTo(7_200);
  }

  @Test
  void theScaleRunIsTheProductionTrafficTheDesignAsksFor() {
    ReleaseParams scale = ReleaseParams.scale();

    assertThat(scale.lookupsPerSecond()).isGreaterThanOrEqualTo(20_000);
    assertThat(scale.deals()).isGreaterThanOrEqualTo(1_000_000);
    assertThat(scale.agents()).isGreaterThanOrEqualTo(16);
    assertThat(scale.repetitions()).isGreaterThanOrEqualTo(3);
    assertThat(scale.skew()).isEqualTo(1.21);
    assertThat(scale.origin()).isEqualTo(ReleaseParams.Origin.MODELLED);
  }

  @Test
  void refusesAnUnknownOriginNamingTheChoices() {
    assertThatThrownBy(() -> ReleaseParams.scale().with("origin", "spanner"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'spanner'").hasMessageContaining("emulator or modelled");
  }
}
