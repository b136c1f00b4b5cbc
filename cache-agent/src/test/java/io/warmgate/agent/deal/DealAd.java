package io.warmgate.agent.deal;

import java.util.Objects;

/**
 * An ad candidate of a deal (a {@code DealAds} row).
 *
 * @param adId the ad's id, unique within the deal
 * @param creativeUrl where the creative is served from
 * @param width creative width in pixels
 * @param height creative height in pixels
 * @param weight relative selection weight among the deal's ads
 */
public record DealAd(String adId, String creativeUrl, long width, long height, long weight) {

  /** @throws NullPointerException if {@code adId} or {@code creativeUrl} is null */
  public DealAd {
    Objects.requireNonNull(adId, "adId");
    Objects.requireNonNull(creativeUrl, "creativeUrl");
  }
}
