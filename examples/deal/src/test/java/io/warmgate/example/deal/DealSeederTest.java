package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DealSeederTest {

  @Test
  void idsAreZeroPaddedAndAdvertisersRepeatEveryHundredDeals() {
    assertThat(DealSeeder.dealId(1)).isEqualTo("deal-000001");
    assertThat(DealSeeder.dealId(10_000)).isEqualTo("deal-010000");
    assertThat(DealSeeder.advertiserId(1)).isEqualTo("adv-0001");
    assertThat(DealSeeder.advertiserId(100)).isEqualTo("adv-0100");
    assertThat(DealSeeder.advertiserId(101)).isEqualTo("adv-0001");
  }

  @Test
  void everyDealHasOneToFourAdsAndOneToThreeTargetingRules() {
    assertThat(IntStream.rangeClosed(1, 12).map(DealSeeder::adCount)).containsOnly(1, 2, 3, 4);
    assertThat(IntStream.rangeClosed(1, 12).map(DealSeeder::targetingCount)).containsOnly(1, 2, 3);
    assertThat(IntStream.rangeClosed(1, 12).mapToObj(DealSeeder::status))
        .contains("ACTIVE", "PAUSED", "ENDED");
  }

  @Test
  void refusesCountsOutsideTheIdSpace() {
    assertThatThrownBy(() -> DealSeeder.seed(null, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    assertThatThrownBy(() -> DealSeeder.seed(null, 1_000_000))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000000");
  }
}
