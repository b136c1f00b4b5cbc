package io.warmgate.example.deals;

import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealAd;
import io.warmgate.example.deal.DealTargeting;
import java.util.List;

/**
 * What deal-service caches and serves in schema version {@code v1}.
 *
 * @param dealId the deal's id
 * @param name the deal's name
 * @param advertiserName the advertiser's name
 * @param status {@code ACTIVE}, {@code PAUSED} or {@code ENDED}
 * @param floorPriceMicros the floor price in millionths of {@code currency}
 * @param currency ISO 4217 code
 * @param ads ad candidates
 * @param targeting targeting rules
 */
public record DealV1(
    String dealId,
    String name,
    String advertiserName,
    String status,
    long floorPriceMicros,
    String currency,
    List<DealAd> ads,
    List<DealTargeting> targeting) {

  static DealV1 from(Deal d) {
    return new DealV1(d.dealId(), d.name(), d.advertiserName(), d.status().name(),
        d.floorPriceMicros(), d.currency(), d.ads(), d.targeting());
  }
}
