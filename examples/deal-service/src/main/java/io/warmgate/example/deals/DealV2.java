package io.warmgate.example.deals;

import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealAd;
import io.warmgate.example.deal.DealTargeting;
import java.util.List;

/**
 * What deal-service caches and serves in schema version {@code v2}: {@link DealV1} plus the
 * advertiser's domain. The added property gives this type another schema hash, so v1 and v2 pods
 * keep separate L2 key spaces.
 *
 * @param dealId the deal's id
 * @param name the deal's name
 * @param advertiserName the advertiser's name
 * @param advertiserDomain the advertiser's domain, or null
 * @param status {@code ACTIVE}, {@code PAUSED} or {@code ENDED}
 * @param floorPriceMicros the floor price in millionths of {@code currency}
 * @param currency ISO 4217 code
 * @param ads ad candidates
 * @param targeting targeting rules
 */
public record DealV2(
    String dealId,
    String name,
    String advertiserName,
    String advertiserDomain,
    String status,
    long floorPriceMicros,
    String currency,
    List<DealAd> ads,
    List<DealTargeting> targeting) {

  static DealV2 from(Deal d) {
    return new DealV2(d.dealId(), d.name(), d.advertiserName(), d.advertiserDomain(),
        d.status().name(), d.floorPriceMicros(), d.currency(), d.ads(), d.targeting());
  }
}
