package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/**
 * The origin load releasing the current canary now would add, as the gate last forecast it (see
 * the operator's README for the model and its assumptions).
 */
public class ForecastStatus {

  @JsonPropertyDescription("Origin reads per second the cache's key spaces cost now, preload "
      + "excluded (the agents' originLoads counters over the last minute).")
  private Double originRate;

  @JsonPropertyDescription("Part of originRate the stable key space costs: its pods alone read "
      + "it, so it ends when the release moves their traffic.")
  private Double leavingRate;

  @JsonPropertyDescription("Predicted origin reads per second a release now adds at its peak, "
      + "right after the release, on top of originRate - leavingRate.")
  private Double peak;

  @JsonPropertyDescription("Predicted added origin reads per second, averaged over the first 10 "
      + "seconds after a release now.")
  private Double firstSeconds;

  @JsonPropertyDescription("Part of peak from ids outside the hot set, which preload does not "
      + "warm; raise warmup.hotSetSize to lower it.")
  private Double tail;

  @JsonPropertyDescription("Predicted seconds after a release now until the added rate falls to "
      + "a tenth of its peak (the new key space about as warm as the old one); at most l2Ttl.")
  private Long warmAfterSeconds;

  @JsonPropertyDescription("Predicted origin reads a release now adds in all, until l2Ttl.")
  private Long extraReads;

  @JsonPropertyDescription("Percentage (0-100) of the lookups still served by the pods a release "
      + "replaces.")
  private Double releasedShare;

  @JsonPropertyDescription("The ids absent from the canary's key space that add most to the peak, "
      + "hottest first (at most 5).")
  private List<HotIdStatus> dominantIds = new ArrayList<>();

  @JsonPropertyDescription("warmup.originBudget when set: the gate releases once originRate - "
      + "leavingRate + peak fits under it.")
  private Integer budget;

  @JsonPropertyDescription("Ids per second the preloading agent loads at now (its adaptive rate "
      + "under warmup.originBudget, else warmup.preloadRate); unset when no preload runs.")
  private Double preloadRate;

  @JsonPropertyDescription("When the forecast was made (RFC 3339, UTC).")
  private String measuredAt;

  @JsonPropertyDescription("The forecast in words, or why there is none.")
  private String message;

  public Double getOriginRate() {
    return originRate;
  }

  public void setOriginRate(Double originRate) {
    this.originRate = originRate;
  }

  public Double getLeavingRate() {
    return leavingRate;
  }

  public void setLeavingRate(Double leavingRate) {
    this.leavingRate = leavingRate;
  }

  public Double getPeak() {
    return peak;
  }

  public void setPeak(Double peak) {
    this.peak = peak;
  }

  public Double getFirstSeconds() {
    return firstSeconds;
  }

  public void setFirstSeconds(Double firstSeconds) {
    this.firstSeconds = firstSeconds;
  }

  public Double getTail() {
    return tail;
  }

  public void setTail(Double tail) {
    this.tail = tail;
  }

  public Long getWarmAfterSeconds() {
    return warmAfterSeconds;
  }

  public void setWarmAfterSeconds(Long warmAfterSeconds) {
    this.warmAfterSeconds = warmAfterSeconds;
  }

  public Long getExtraReads() {
    return extraReads;
  }

  public void setExtraReads(Long extraReads) {
    this.extraReads = extraReads;
  }

  public Double getReleasedShare() {
    return releasedShare;
  }

  public void setReleasedShare(Double releasedShare) {
    this.releasedShare = releasedShare;
  }

  public List<HotIdStatus> getDominantIds() {
    return dominantIds;
  }

  public void setDominantIds(List<HotIdStatus> dominantIds) {
    this.dominantIds = dominantIds == null ? new ArrayList<>() : dominantIds;
  }

  public Integer getBudget() {
    return budget;
  }

  public void setBudget(Integer budget) {
    this.budget = budget;
  }

  public Double getPreloadRate() {
    return preloadRate;
  }

  public void setPreloadRate(Double preloadRate) {
    this.preloadRate = preloadRate;
  }

  public String getMeasuredAt() {
    return measuredAt;
  }

  public void setMeasuredAt(String measuredAt) {
    this.measuredAt = measuredAt;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
