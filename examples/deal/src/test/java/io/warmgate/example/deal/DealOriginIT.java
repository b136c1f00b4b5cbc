package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import io.warmgate.testing.CountingReads;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Deal origin against the real Spanner emulator and the seeded example schema. */
class DealOriginIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static final AtomicInteger reads = new AtomicInteger();
  private static DatabaseClient counting;

  @BeforeAll
  static void seed() {
    DealSeeder.seed(spanner.databaseClient(), 40);
    counting = CountingReads.counting(spanner.databaseClient(), reads);
  }

  @Test
  void loadsABatchWithAdvertiserAdsAndTargetingInOneRead() {
    List<String> ids = new ArrayList<>();
    for (int n = 1; n <= 14; n++) {
      ids.add(DealSeeder.dealId(n));
    }
    ids.add("deal-999999");
    reads.set(0);

    Map<String, Deal> deals = DealOrigin.spanner(counting).loadAll(ids);

    assertThat(reads).as("one query for the whole batch").hasValue(1);
    assertThat(deals).hasSize(14).doesNotContainKey("deal-999999");
    for (int n = 1; n <= 14; n++) {
      Deal deal = deals.get(DealSeeder.dealId(n));
      assertThat(deal.dealId()).isEqualTo(DealSeeder.dealId(n));
      assertThat(deal.name()).isEqualTo("Deal " + n);
      assertThat(deal.advertiserId()).isEqualTo(DealSeeder.advertiserId(n));
      assertThat(deal.advertiserName()).isEqualTo("Advertiser " + n);
      assertThat(deal.status().name()).isEqualTo(DealSeeder.status(n));
      assertThat(deal.floorPriceMicros()).isEqualTo(DealSeeder.floorPriceMicros(n));
      assertThat(deal.ads()).hasSize(DealSeeder.adCount(n));
      assertThat(deal.ads()).extracting(DealAd::adId).isSorted();
      assertThat(deal.targeting()).hasSize(DealSeeder.targetingCount(n));
      assertThat(deal.updatedAt()).isNotNull();
      assertThat(deal.startTime()).isNotNull();
      assertThat(deal.endTime() == null).as("open-ended every 7th deal").isEqualTo(n % 7 == 0);
    }
    assertThat(deals.get(DealSeeder.dealId(10)).advertiserDomain()).isNull();
    assertThat(deals.get(DealSeeder.dealId(3)).advertiserDomain()).isEqualTo("advertiser-3.example.com");
  }

  @Test
  void unknownIdsAreAbsent() {
    assertThat(DealOrigin.spanner(spanner.databaseClient()).loadAll(List.of("nope", "deal-000000")))
        .isEmpty();
  }

  @Test
  void idsWithQuotesOrUnicodeAreBoundNotInterpolated() {
    assertThat(DealOrigin.spanner(spanner.databaseClient())
        .loadAll(List.of("x' OR '1'='1", "ünï", DealSeeder.dealId(1))))
        .containsOnlyKeys(DealSeeder.dealId(1));
  }
}
