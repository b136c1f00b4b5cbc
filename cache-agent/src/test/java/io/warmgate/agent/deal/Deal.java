package io.warmgate.agent.deal;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An ad deal as read in one query: the {@code Deals} row, its advertiser, its ad candidates and
 * its targeting rules. Immutable; the lists are unmodifiable copies, ordered by ad id and by
 * (dimension, value).
 *
 * @param dealId the deal's id
 * @param advertiserId the advertiser's id
 * @param advertiserName the advertiser's name
 * @param advertiserDomain the advertiser's domain, or null
 * @param name the deal's name
 * @param status the lifecycle state
 * @param floorPriceMicros the floor price in millionths of {@code currency}
 * @param currency ISO 4217 code
 * @param startTime when the deal starts, or null
 * @param endTime when the deal ends, or null for open-ended
 * @param updatedAt when the deal row was last written
 * @param ads ad candidates
 * @param targeting targeting rules
 */
public record Deal(
    String dealId,
    String advertiserId,
    String advertiserName,
    String advertiserDomain,
    String name,
    DealStatus status,
    long floorPriceMicros,
    String currency,
    Instant startTime,
    Instant endTime,
    Instant updatedAt,
    List<DealAd> ads,
    List<DealTargeting> targeting) {

  /** @throws NullPointerException if a required field (all but domain and times) is null */
  public Deal {
    Objects.requireNonNull(dealId, "dealId");
    Objects.requireNonNull(advertiserId, "advertiserId");
    Objects.requireNonNull(advertiserName, "advertiserName");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(updatedAt, "updatedAt");
    ads = List.copyOf(ads);
    targeting = List.copyOf(targeting);
  }
}
